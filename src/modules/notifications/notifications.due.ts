import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { registerJob } from '../../platform/jobs.js';
import { deliver, inSpaceOfTask, type Candidate } from './notifications.deliver.js';

export const DUE_JOB = 'notifications.due';

/**
 * How far back a missed due date is still announced. Without a bound, every run would rescan every
 * task ever left overdue; with it, a service that was down for a while still catches up.
 */
const LOOKBACK = '7 days';

// Open (in work or needs attention), unarchived tasks whose due moment has passed: dateEnd, or the
// end (UTC) of dateEndWithoutTime when only the date is set.
export const DUE_AT = sql`coalesce(t.date_end, (t.date_end_without_time + 1)::timestamp at time zone 'UTC')`;
const DUE = sql`t.status in (0, 3) and t.archived_at is null
  and ${DUE_AT} <= now() and ${DUE_AT} > now() - ${sql.raw(`interval '${LOOKBACK}'`)}`;
// The deadline as the dedup key shows it: dateEnd in ISO 8601 with milliseconds, or the date.
export const DUE_LABEL = sql`coalesce(to_char(t.date_end at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), t.date_end_without_time::text)`;
// Assignee `a` of task `t` has not been told yet and may be (deliver's rule: an active member who can
// read the task). Quiet organizations open no transaction at all, and an assignee who lost access
// does not reopen one every minute for a notification that deliver would drop.
const UNTOLD = sql`not exists (select 1 from notifications n where n.organization_id = t.organization_id and n.user_id = a.user_id
    and n.dedup_key = 'task.due:' || t.id || ':' || ${DUE_LABEL})
  and exists (select 1 from organization_members om where om.organization_id = t.organization_id and om.user_id = a.user_id
    and om.active and om.deleted_at is null and (om.role in ('owner', 'admin') or ${inSpaceOfTask(sql`a.user_id`, sql`t.id`)}))`;

interface DueRow {
  taskId: number;
  name: string;
  projectId: number;
  spaceId: number;
  userId: number;
  due: string;
}

/** The organizations where someone is owed a due-date notice: the only ones the job opens a transaction for. */
export async function organizationsOwingDueNotices(db: Queryable): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select distinct t.organization_id as id from tasks t
        where ${DUE} and exists (select 1 from task_assignees a where a.task_id = t.id and ${UNTOLD})`,
  );
  return rows.map((r) => Number(r.id));
}

/** Tells each assignee of an overdue task, once per due date (a new date is a new deadline). */
export async function notifyDueTasks(app: FastifyInstance): Promise<void> {
  // One transaction per organization: one organization's failure or lock wait holds up no other.
  for (const organizationId of await organizationsOwingDueNotices(app.database.db)) {
    await systemWrite(app, organizationId, async (ctx) => {
      const rows = await queryRows<DueRow>(
        ctx.db,
        sql`select t.id as "taskId", t.name, t.project_id as "projectId", t.space_id as "spaceId", a.user_id as "userId",
              ${DUE_LABEL} as due
            from tasks t join task_assignees a on a.task_id = t.id
            where t.organization_id = ${organizationId} and ${DUE} and ${UNTOLD}`,
      );
      const candidates = rows.map(
        (r): Candidate => ({
          organizationId,
          userId: Number(r.userId),
          type: 'task.due',
          text: `“${r.name}” is past its due date`,
          dedupKey: `task.due:${Number(r.taskId)}:${r.due}`,
          taskId: Number(r.taskId),
          projectId: Number(r.projectId),
          spaceId: Number(r.spaceId),
          actorId: null,
        }),
      );
      await deliver(ctx.db, candidates, (e) => emit(ctx.db, e));
    }).catch((err: unknown) => app.log.error({ err, organizationId }, 'due-date notifications failed'));
  }
}

/** Every minute, on one instance at a time (the job's period is claimed in scheduled_jobs). */
export function registerDueJob(app: FastifyInstance): void {
  registerJob(app, { name: DUE_JOB, intervalMs: 60_000, exclusive: true, run: notifyDueTasks });
}
