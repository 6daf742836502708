import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { recordHistory, type HistoryEntry } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { authorizeProperty, type PropertyAction } from './properties.policy.js';

export interface TaskWithHistory {
  task: TaskDto;
  history: HistoryDto;
}

type Stamp = Date | string | null;

/** The task row as a property change needs it, read under the row lock. */
export interface LockedTask {
  id: number;
  name: string;
  spaceId: number;
  status: number;
  blockReason: string | null;
  importance: number;
  dateBegin: Stamp;
  dateEnd: Stamp;
  dateBeginWithoutTime: string | null;
  dateEndWithoutTime: string | null;
  /** The home (pinned) project: history names it, and assignees must belong to a space holding it. */
  projectId: number;
  projectName: string;
}

/**
 * Starts a change of one task's property: authorizes on the row (404 before 403), then locks it
 * (the same NO KEY UPDATE lock, tasks first, that board moves take) so that read-modify-write rules
 * such as the date range see the values they write over. An archived task is read-only (409).
 * `alsoLock` names further tasks the change writes to (parents of a linked subtask).
 */
export async function beginTaskChange(ctx: Ctx, taskId: number, action: PropertyAction, alsoLock: number[] = []): Promise<LockedTask> {
  const { db, actor } = ctx;
  await authorizeProperty(db, actor, taskId, action);
  if (alsoLock.length > 0) {
    // Other tasks the change touches are locked with it, all by id: the order every task writer keeps.
    const all = [...new Set([taskId, ...alsoLock])];
    await db.execute(
      sql`select id from tasks where id = any(${idArray(all)}) and organization_id = ${actor.organizationId} order by id for no key update`,
    );
  }
  const [row] = await queryRows<LockedTask & { archived: boolean }>(
    db,
    sql`select t.id, t.name, t.space_id as "spaceId", t.status, t.block_reason as "blockReason", t.importance,
          t.date_begin as "dateBegin", t.date_end as "dateEnd", t.date_begin_without_time::text as "dateBeginWithoutTime",
          t.date_end_without_time::text as "dateEndWithoutTime", t.archived_at is not null as archived,
          home.project_id as "projectId", home.name as "projectName"
        from tasks t
        cross join lateral (
          select ts.project_id, p.name from task_stages ts join projects p on p.id = ts.project_id
          where ts.task_id = t.id order by ts.pinned desc, ts.project_id limit 1) home
        where t.id = ${taskId} and t.organization_id = ${actor.organizationId}
        for no key update of t`,
    { prepare: 'task-change-lock' },
  );
  if (!row) throw notFound('task');
  if (row.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
  return {
    ...row,
    id: Number(row.id),
    spaceId: Number(row.spaceId),
    status: Number(row.status),
    importance: Number(row.importance),
    projectId: Number(row.projectId),
  };
}

/**
 * Ends a change: stamps updated_at when something changed, writes the history row in the same
 * transaction and answers Task(full) with it. A request that changes nothing (adding an assignee
 * twice) still records what was asked, so that every answer carries its history row.
 */
export async function finishTaskChange(
  ctx: Ctx,
  task: LockedTask,
  entry: { type: HistoryEntry['type']; state: string; changed: boolean },
): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  if (entry.changed) await queryRows(db, sql`update tasks set updated_at = now() where id = ${task.id}`, { prepare: 'task-touch' });
  const [history] = await recordHistory(db, actor, [
    { taskId: task.id, type: entry.type, state: entry.state, projectName: task.projectName, taskName: task.name },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [task.id]);
  return { task: presentTask(record!), history: history! };
}

/** Names of users for history sentences ("assigned Ann"), in the order of the ids given. */
export async function userNames(ctx: Ctx, userIds: number[]): Promise<string> {
  if (userIds.length === 0) return '';
  const rows = await queryRows<{ id: number; name: string }>(
    ctx.db,
    sql`select id, name from users where id = any(${idArray(userIds)})`,
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r.name]));
  return userIds.map((id) => byId.get(id) ?? `user ${id}`).join(', ');
}
