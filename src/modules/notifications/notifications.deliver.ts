import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { EventInput } from '../../platform/events.js';
import { COLUMNS, presentNotification, type NotificationRow } from './notifications.presenter.js';

/** One notification the pipeline or a job would like to create; `dedupKey` names its cause. */
export interface Candidate {
  organizationId: number;
  userId: number;
  type: string;
  text: string;
  dedupKey: string;
  taskId?: number | null;
  projectId?: number | null;
  spaceId?: number | null;
  actorId?: number | null;
  eventId?: number | null;
}

/**
 * Who may read a task besides the organization's owners and admins: a member of a space holding one
 * of its projects (home or linked), the tasks policy's rule as one SQL condition.
 */
export const inSpaceOfTask = (user: SQL, task: SQL): SQL =>
  sql`exists (select 1 from space_members sm where sm.user_id = ${user} and sm.space_id in (
        select p.space_id from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = ${task}
        union select ps.space_id from task_stages ts join project_spaces ps on ps.project_id = ts.project_id where ts.task_id = ${task}))`;

/**
 * Inserts the candidates in one statement and announces each new row to its addressee.
 * The statement itself keeps the two rules that need the database: the addressee must still be an
 * active member of the organization who can read the task (a member of a space holding one of its
 * projects, or an organization owner or admin), and a cause notifies a user at most once (the
 * unique dedup key; a concurrent twin waits for the first and then does nothing).
 */
export async function deliver(db: Queryable, candidates: Candidate[], emit: (e: EventInput) => void): Promise<NotificationRow[]> {
  const unique = new Map<string, Candidate>();
  for (const c of candidates) unique.set(`${c.organizationId}:${c.userId}:${c.dedupKey}`, c);
  if (unique.size === 0) return [];
  const rows = [...unique.values()].map((c) => ({
    organization_id: c.organizationId,
    user_id: c.userId,
    type: c.type,
    text: c.text,
    task_id: c.taskId ?? null,
    project_id: c.projectId ?? null,
    space_id: c.spaceId ?? null,
    actor_id: c.actorId ?? null,
    event_id: c.eventId ?? null,
    dedup_key: c.dedupKey,
  }));
  const inserted = await queryRows<NotificationRow & { organizationId: number }>(
    db,
    sql`insert into notifications (organization_id, user_id, type, text, task_id, project_id, space_id, actor_id, event_id, dedup_key)
        select c.organization_id, c.user_id, c.type, c.text, c.task_id, c.project_id, c.space_id, c.actor_id, c.event_id, c.dedup_key
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as c(organization_id bigint, user_id bigint, type text, text text, task_id bigint, project_id bigint, space_id bigint,
               actor_id bigint, event_id bigint, dedup_key text)
        join organization_members om on om.organization_id = c.organization_id and om.user_id = c.user_id
          and om.active and om.deleted_at is null
        where c.task_id is null
           or exists (select 1 from tasks t where t.id = c.task_id and t.organization_id = c.organization_id)
              and (om.role in ('owner', 'admin') or ${inSpaceOfTask(sql`c.user_id`, sql`c.task_id`)})
        on conflict (organization_id, user_id, dedup_key) do nothing
        returning organization_id as "organizationId", ${COLUMNS}`,
  );
  for (const row of inserted) {
    emit({
      type: 'notification.created',
      organizationId: Number(row.organizationId),
      userId: Number(row.userId),
      taskId: row.taskId === null ? null : Number(row.taskId),
      projectId: row.projectId === null ? null : Number(row.projectId),
      spaceId: row.spaceId === null ? null : Number(row.spaceId),
      actorId: row.actorId === null ? null : Number(row.actorId),
      payload: presentNotification(row),
    });
  }
  return inserted;
}
