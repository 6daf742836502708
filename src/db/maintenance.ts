import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { registerJob } from '../platform/jobs.js';

/**
 * What PostgreSQL's autovacuum does that the embedded engine (PGlite) has no process for, as
 * periodic jobs of the service itself.
 *
 * - Statistics: without them the planner picks nested loops over whole tables as the data grows.
 * - GIN pending lists: rows added to a GIN index (task and message search, reglaments, the AI
 *   index) go first to the index's unsorted pending list, which every search through that index reads
 *   whole; only vacuum, or an insert finding the list past gin_pending_list_limit (4 MB), merges it
 *   into the index. Left alone, searches read up to 4 MB of list each: a narrow search of a
 *   1,000-task organization took 20 ms where the cleaned index answers in 1. Merging per index is
 *   tens of milliseconds; `fastupdate = off` (no list) would instead cost every write of a task's
 *   text or a chat message its index insertions at once (measured 0.29-0.37 ms against 0.18 ms per
 *   row on PGlite), and PostgreSQL needs neither.
 */
export function registerEmbeddedMaintenance(app: FastifyInstance): void {
  registerJob(app, { name: 'db.analyze', intervalMs: 10 * 60_000, exclusive: false, run: async (a) => void (await a.database.db.execute(sql`analyze`)) });
  registerJob(app, {
    name: 'db.gin-clean',
    intervalMs: 10 * 60_000,
    exclusive: false,
    run: async (a) =>
      void (await a.database.db.execute(
        sql`select gin_clean_pending_list(c.oid) from pg_class c join pg_am am on am.oid = c.relam
            where am.amname = 'gin' and c.relnamespace = 'public'::regnamespace`,
      )),
  });
}
