import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { HISTORY, recordHistory, type HistoryEntry } from '../history/history.service.js';
import { createTask } from '../tasks.service.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import { authorizeChildColumn } from './subtasks.policy.js';
import { beginChecklistChange, lockSubtask, type TaskWithHistory } from './checklist-change.js';

/**
 * "Show on board" links a subtask to a child task, and the two stay in step: the subtask is checked
 * exactly while the child is done (status 1). This file holds both directions of that rule.
 */

const DONE = 1;
const IN_WORK = 0;

/**
 * Subtask → child: finishes (or reopens) the child tasks of checked (unchecked) subtasks. Reopening
 * touches only children that are done, so a rejected child stays rejected. Answers the children's
 * status history entries for the caller to record with its own, in the same transaction.
 */
export async function setChildrenDone(ctx: Ctx, childTaskIds: number[], done: boolean, because: string): Promise<HistoryEntry[]> {
  if (childTaskIds.length === 0) return [];
  const rows = await queryRows<{ id: number; name: string; projectName: string | null }>(
    ctx.db,
    sql`with changed as (
          update tasks set status = ${done ? DONE : IN_WORK}, block_reason = null, date_status_changed = now(), updated_at = now()
          where id = any(${idArray(childTaskIds)}) and organization_id = ${ctx.actor.organizationId}
            and ${done ? sql`status <> ${DONE}` : sql`status = ${DONE}`}
          returning id, name)
        select c.id, c.name, (select p.name from task_stages ts join projects p on p.id = ts.project_id
                              where ts.task_id = c.id order by ts.pinned desc, ts.project_id limit 1) as "projectName"
        from changed c order by c.id`,
  );
  return rows.map((r) => ({
    taskId: Number(r.id),
    type: HISTORY.status,
    state: done ? `finished the task: ${because} was checked` : `reopened the task: ${because} was unchecked`,
    projectName: r.projectName ?? '',
    taskName: r.name,
  }));
}

/**
 * Child → subtask: every use case that moves tasks to or from status 1 (done) calls this with the
 * tasks it changed, in its transaction. The subtasks linked to them are checked (unchecked), and
 * each parent whose checklist changed gets one history record (11).
 */
export async function syncSubtasksOfChildren(ctx: Ctx, childTaskIds: number[], done: boolean): Promise<void> {
  if (childTaskIds.length === 0) return;
  const { db, actor } = ctx;
  const changed = await queryRows<{ taskId: number; subtask: string; taskName: string; projectName: string | null }>(
    db,
    sql`with changed as (
          update subtasks set is_checked = ${done}, updated_at = now()
          where child_task_id = any(${idArray(childTaskIds)}) and organization_id = ${actor.organizationId} and is_checked <> ${done}
          returning task_id, name)
        select c.task_id as "taskId", c.name as subtask, t.name as "taskName",
          (select p.name from task_stages ts join projects p on p.id = ts.project_id
           where ts.task_id = t.id order by ts.pinned desc, ts.project_id limit 1) as "projectName"
        from changed c join tasks t on t.id = c.task_id order by c.task_id, c.name`,
  );
  // recordHistory takes one entry per task and call: several subtasks of one parent share a record.
  const byParent = new Map<number, { names: string[]; taskName: string; projectName: string }>();
  for (const row of changed) {
    const entry = byParent.get(Number(row.taskId)) ?? { names: [], taskName: row.taskName, projectName: row.projectName ?? '' };
    entry.names.push(`"${row.subtask}"`);
    byParent.set(Number(row.taskId), entry);
  }
  if (byParent.size === 0) return;
  await db.execute(sql`update tasks set updated_at = now() where id = any(${idArray([...byParent.keys()])})`);
  await recordHistory(
    db,
    actor,
    [...byParent].map(([taskId, e]) => ({
      taskId,
      type: HISTORY.subtasks,
      state: `${done ? 'checked' : 'unchecked'} subtask ${e.names.join(', ')}: its task was ${done ? 'finished' : 'reopened'}`,
      projectName: e.projectName,
      taskName: e.taskName,
    })),
  );
}

/**
 * Shows a subtask on the board: creates a task named like it in `stageId` (S:member there, the
 * column's limit applies) and links it as the subtask's child. A subtask already checked gives a
 * child that is already done. Both tasks get a history record (11); the answer is the child's.
 */
export async function showSubtaskOnBoard(ctx: Ctx, taskId: number, subtaskId: number, stageId: number): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const parent = await beginChecklistChange(ctx, taskId, 'showOnBoard');
  const subtask = await lockSubtask(ctx, taskId, subtaskId);
  const column = await authorizeChildColumn(db, actor, stageId);
  if (subtask.childTaskId !== null) throw new AppError('CONFLICT', `the subtask is already on the board as task ${subtask.childTaskId}`);

  const { task: child } = await createTask(ctx, { name: subtask.name, stageId: column.id });
  await db.execute(sql`update subtasks set child_task_id = ${child.id}, updated_at = now() where id = ${subtaskId}`);
  if (subtask.isChecked) {
    await db.execute(sql`update tasks set status = ${DONE}, date_status_changed = now(), updated_at = now() where id = ${child.id}`);
  }
  await db.execute(sql`update tasks set updated_at = now() where id = ${taskId}`);
  const [history] = await recordHistory(db, actor, [
    { taskId: child.id, type: HISTORY.subtasks, state: `became the board task of subtask "${subtask.name}" of "${parent.name}"`, projectName: column.projectName, taskName: child.name },
    { taskId, type: HISTORY.subtasks, state: `showed subtask "${subtask.name}" on the board in "${column.name}"`, projectName: parent.projectName, taskName: parent.name },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [child.id]);
  return { task: presentTask(record!), history: history! };
}
