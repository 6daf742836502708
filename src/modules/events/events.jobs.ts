import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { registerJob } from '../../platform/jobs.js';

/**
 * The change log is kept for EVENTS_RETENTION_DAYS (resume windows, delivery logs and
 * notifications refer to it); older rows go in small batches so no long lock is held.
 */
export function registerEventJobs(app: FastifyInstance): void {
  registerJob(app, {
    name: 'events.prune',
    intervalMs: 60 * 60 * 1000,
    exclusive: true,
    async run(app) {
      const days = app.config.eventsRetentionDays;
      for (let i = 0; i < 100; i++) {
        // The batch is read once into an array (an `in (subquery … limit)` may be planned to run it again per row).
        const result = (await app.database.db.execute(sql`
          delete from events where ctid = any(array(
            select ctid from events where at < now() - make_interval(days => ${days}) limit 5000))`)) as unknown as { rowCount?: number; affectedRows?: number };
        if ((result.rowCount ?? result.affectedRows ?? 0) < 5000) break;
      }
    },
  });
}
