import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { systemWrite } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { registerJob, wakeAfterCommit } from '../../platform/jobs.js';
import { DUE_AT, DUE_LABEL } from '../notifications/notifications.due.js';
import { AutomationEngine } from './automation.engine.js';
import { queueRuns } from './automation.queue.js';
import type { Trigger } from './automation.schemas.js';
import { nextOccurrence } from './automation.validate.js';

export const AUTOMATION_RUN_JOB = 'automation.run';
export const AUTOMATION_TICK_JOB = 'automation.tick';
export const AUTOMATION_PRUNE_JOB = 'automation.prune';

/**
 * Queues the run of each schedule rule whose occurrence has come, once across instances: the rule
 * row is taken with skip locked and its next occurrence computed from now, so a service that was
 * down over several occurrences catches up with one run, not one per missed tick.
 */
export async function queueScheduled(app: FastifyInstance): Promise<number> {
  const due = await queryRows<{ id: number; organizationId: number }>(
    app.database.db,
    sql`select id, organization_id as "organizationId" from automation_rules
        where enabled and next_run_at is not null and next_run_at <= now() order by next_run_at limit 100`,
  );
  let queued = 0;
  for (const candidate of due) {
    queued += await systemWrite(app, Number(candidate.organizationId), async ({ db }) => {
      const [rule] = await queryRows<{ id: number; trigger: Trigger; nextRunAt: Date | string }>(
        db,
        sql`select id, trigger, next_run_at as "nextRunAt" from automation_rules
            where id = ${candidate.id} and enabled and next_run_at <= now() for update skip locked`,
      );
      if (!rule) return 0;
      const occurrence = new Date(rule.nextRunAt).toISOString();
      const inserted = await queryRows(
        db,
        sql`insert into automation_runs (organization_id, rule_id, cause, depth) values (${candidate.organizationId}, ${rule.id}, ${`s:${occurrence}`}, 1)
            on conflict (rule_id, cause) do nothing returning id`,
      );
      let next: string | null = null;
      let error: string | null = null;
      try {
        next = (await nextOccurrence(rule.trigger)).toISOString();
      } catch (err) {
        error = err instanceof AppError ? err.message : 'the schedule cannot be computed';
      }
      await db.execute(sql`update automation_rules set next_run_at = ${next}, last_error = coalesce(${error}, last_error) where id = ${rule.id}`);
      return inserted.length;
    });
  }
  return queued;
}

/**
 * Queues due-date-reached and overdue runs: one per rule, task and due moment (the unique cause),
 * for due moments of the last 7 days, the due-date notices' window.
 */
export async function queueDue(app: FastifyInstance): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    app.database.db,
    sql`insert into automation_runs (organization_id, rule_id, cause, task_id, depth)
        select distinct r.organization_id, r.id, 'd:' || t.id || ':' || ${DUE_LABEL}, t.id, 1
        from automation_rules r
        join task_stages ts on ts.project_id = r.project_id
        join tasks t on t.id = ts.task_id
        where r.enabled and r.trigger_type in ('due-date-reached', 'overdue') and t.archived_at is null
          and ${DUE_AT} <= now() and ${DUE_AT} > now() - interval '7 days'
          and (r.trigger_type = 'due-date-reached' or t.status in (0, 3))
        on conflict (rule_id, cause) do nothing
        returning id`,
  );
  return rows.length;
}

/** Wires automation into the app: the queueing listener, the engine, the schedule/due tick and pruning. */
export function startAutomation(app: FastifyInstance): AutomationEngine {
  const engine = new AutomationEngine(app);
  app.events.addListener(queueRuns(wakeAfterCommit(app, AUTOMATION_RUN_JOB, () => engine.drain())));
  registerJob(app, { name: AUTOMATION_RUN_JOB, intervalMs: app.config.automationPollMs, exclusive: false, run: () => engine.drain() });
  registerJob(app, {
    name: AUTOMATION_TICK_JOB,
    intervalMs: app.config.automationTickMs,
    exclusive: false,
    async run(app) {
      const n = (await queueScheduled(app)) + (await queueDue(app));
      if (n > 0) await engine.drain();
    },
  });
  registerJob(app, {
    name: AUTOMATION_PRUNE_JOB,
    intervalMs: 60 * 60 * 1000,
    exclusive: true,
    async run(app) {
      // The trace is kept as long as the change log it points into.
      const days = Math.max(30, app.config.eventsRetentionDays);
      await app.database.db.execute(sql`delete from automation_runs where status <> 'pending' and created_at < now() - make_interval(days => ${days})`);
    },
  });
  app.addHook('onClose', async () => engine.stop());
  return engine;
}
