import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { emit, type EventType } from '../../platform/events.js';
import { HISTORY, recordHistory } from '../tasks/history/history.service.js';
import type { HistoryDto } from '../tasks/history/history.schemas.js';
import { loadTaskRecords, presentTask } from '../tasks/index.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';

export interface LockedTimeTask {
  name: string;
  /** The home (pinned) project, named in history and stamped on timers. */
  projectId: number;
  projectName: string;
  /** The home space: with the project, where the task's time events are addressed. */
  spaceId: number;
}

/**
 * A change of a task's spent time (its factTime, the sum of its records). The task row is locked
 * first (the same NO KEY UPDATE lock, tasks first, that moves and property changes take), so
 * concurrent changes of one task's records queue and each answer carries a factTime that includes
 * its own change and every change committed before it.
 *
 * `organizationId`: the task's, when a user's timer in another organization is stopped on its behalf.
 */
export async function lockTaskForTime(ctx: Ctx, taskId: number, organizationId = ctx.actor.organizationId): Promise<LockedTimeTask> {
  const [row] = await queryRows<LockedTimeTask>(
    ctx.db,
    sql`select t.name, t.project_id as "projectId", p.name as "projectName", t.space_id as "spaceId"
        from tasks t join projects p on p.id = t.project_id
        where t.id = ${taskId} and t.organization_id = ${organizationId}
        for no key update of t`,
  );
  if (!row) throw notFound('task');
  return { ...row, projectId: Number(row.projectId), spaceId: Number(row.spaceId) };
}

/** Stamps the task changed and writes its history row (type 14, spent time) in the caller's transaction. */
export async function recordSpentTime(db: Queryable, actor: Actor, taskId: number, task: LockedTimeTask, state: string): Promise<HistoryDto> {
  await db.execute(sql`update tasks set updated_at = now() where id = ${taskId}`);
  const [history] = await recordHistory(db, actor, [{ taskId, type: HISTORY.spentTime, state, projectName: task.projectName, taskName: task.name }]);
  return history!;
}

/** Task(full) as it stands in the caller's transaction (factTime included). */
export async function loadTaskForm(ctx: Ctx, taskId: number): Promise<TaskDto> {
  const [record] = await loadTaskRecords(ctx.db, ctx.actor.organizationId, [taskId]);
  if (!record) throw notFound('task');
  return presentTask(record);
}

/** Records the change (history 14) and answers Task(full) with its history row. */
export async function finishTimeChange(ctx: Ctx, taskId: number, task: LockedTimeTask, state: string): Promise<{ task: TaskDto; history: HistoryDto }> {
  const history = await recordSpentTime(ctx.db, ctx.actor, taskId, task, state);
  return { task: await loadTaskForm(ctx, taskId), history };
}

/** A time record or timer event, addressed like the task's own events. */
export function emitTimeEvent(ctx: Ctx, type: EventType, taskId: number, task: LockedTimeTask, payload: unknown, organizationId?: number): void {
  emit(ctx, { type, taskId, spaceId: task.spaceId, projectId: task.projectId, payload, ...(organizationId === undefined ? {} : { organizationId }) });
}

/** "1.5 h", "0.25 h": hours for history sentences, without float noise. */
export const hoursText = (hours: number): string => `${Number(hours.toFixed(2))} h`;
