import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import type { OrderedScope } from '../../../platform/ordering.js';
import { HISTORY, recordHistory, type HistoryEntry } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { authorizeSubtasks, type SubtaskAction } from './subtasks.policy.js';

// The steps every checklist change shares: authorize and lock the task, lock the subtask, record.

export interface TaskWithHistory {
  task: TaskDto;
  history: HistoryDto;
}

/** The parent task as a checklist change needs it, read under its row lock. */
export interface ParentTask {
  id: number;
  name: string;
  projectName: string;
}

export interface SubtaskRow {
  id: number;
  name: string;
  isChecked: boolean;
  childTaskId: number | null;
  order: number;
}

export const scopeOf = (taskId: number): OrderedScope => ({ table: 'subtasks', key: 'id', where: sql`task_id = ${taskId}` });

/**
 * Starts a checklist change: authorizes on the task (404 before 403), then locks its row (the same
 * NO KEY UPDATE lock, tasks first, that board moves and property changes take). The lock is what
 * serializes checklist writers: an empty checklist has no subtask rows to lock, and two concurrent
 * first subtasks would otherwise both take position 0. An archived task is read-only (409).
 */
export async function beginChecklistChange(ctx: Ctx, taskId: number, action: SubtaskAction): Promise<ParentTask> {
  const { db, actor } = ctx;
  await authorizeSubtasks(db, actor, taskId, action);
  const [row] = await queryRows<ParentTask & { archived: boolean }>(
    db,
    sql`select t.id, t.name, t.archived_at is not null as archived,
          coalesce((select p.name from task_stages ts join projects p on p.id = ts.project_id
                    where ts.task_id = t.id order by ts.pinned desc, ts.project_id limit 1), '') as "projectName"
        from tasks t where t.id = ${taskId} and t.organization_id = ${actor.organizationId}
        for no key update of t`,
  );
  if (!row) throw notFound('task');
  if (row.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
  return { id: Number(row.id), name: row.name, projectName: row.projectName };
}

/** One subtask of the (locked) task, locked too; 404 when it belongs to another task. */
export async function lockSubtask(ctx: Ctx, taskId: number, subtaskId: number): Promise<SubtaskRow> {
  const [row] = await queryRows<SubtaskRow>(
    ctx.db,
    sql`select id, name, is_checked as "isChecked", child_task_id as "childTaskId", "order"
        from subtasks where id = ${subtaskId} and task_id = ${taskId} and organization_id = ${ctx.actor.organizationId}
        for update`,
  );
  if (!row) throw notFound('subtask');
  return { ...row, id: Number(row.id), childTaskId: row.childTaskId === null ? null : Number(row.childTaskId), order: Number(row.order) };
}

/** Ends a checklist change: stamps the task, writes its history row (11) and answers Task(full) with it. */
export async function finishChecklistChange(ctx: Ctx, task: ParentTask, state: string, more: HistoryEntry[] = []): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  await db.execute(sql`update tasks set updated_at = now() where id = ${task.id}`);
  const [history] = await recordHistory(db, actor, [{ taskId: task.id, type: HISTORY.subtasks, state, projectName: task.projectName, taskName: task.name }, ...more]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [task.id]);
  return { task: presentTask(record!), history: history! };
}
