import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { compact, placeAt } from '../../../platform/ordering.js';
import { HISTORY, recordForTasks } from '../history/history.service.js';
import { beginChecklistChange, finishChecklistChange, lockSubtask, scopeOf, type SubtaskRow, type TaskWithHistory } from './checklist-change.js';
import { setChildrenDone } from './child-task.service.js';
import { authorizeSubtasks } from './subtasks.policy.js';

export interface SubtaskDto {
  id: number;
  name: string;
  isChecked: boolean;
  taskId: number;
  childTaskId: number | null;
  order: string;
}

export async function listSubtasks(ctx: Ctx, taskId: number, page: { limit: number; offset: number }): Promise<{ items: SubtaskDto[]; total: number }> {
  const { db, actor } = ctx;
  await authorizeSubtasks(db, actor, taskId, 'list');
  const rows = await queryRows<SubtaskRow & { total: number }>(
    db,
    sql`select id, name, is_checked as "isChecked", child_task_id as "childTaskId", "order", count(*) over () as total
        from subtasks where task_id = ${taskId} and organization_id = ${actor.organizationId}
        order by "order", id limit ${page.limit} offset ${page.offset}`,
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : page.offset > 0 ? await countSubtasks(ctx, taskId) : 0;
  return {
    total,
    items: rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      isChecked: r.isChecked,
      taskId,
      childTaskId: r.childTaskId === null ? null : Number(r.childTaskId),
      order: String(r.order),
    })),
  };
}

async function countSubtasks(ctx: Ctx, taskId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(ctx.db, sql`select count(*)::int as n from subtasks where task_id = ${taskId}`);
  return Number(row?.n ?? 0);
}

export async function createSubtask(ctx: Ctx, taskId: number, input: { name: string; order?: number }): Promise<TaskWithHistory> {
  const task = await beginChecklistChange(ctx, taskId, 'create');
  const name = input.name.trim();
  // Inserted past the end, then placed: placeAt renumbers the list densely around it.
  const [row] = await queryRows<{ id: number }>(
    ctx.db,
    sql`insert into subtasks (organization_id, task_id, name, "order")
        values (${ctx.actor.organizationId}, ${taskId}, ${name}, 2147483647) returning id`,
  );
  const at = await placeAt(ctx.db, scopeOf(taskId), Number(row!.id), input.order);
  return finishChecklistChange(ctx, task, `added subtask "${name}" at position ${at}`);
}

export async function renameSubtask(ctx: Ctx, taskId: number, subtaskId: number, name: string): Promise<TaskWithHistory> {
  const task = await beginChecklistChange(ctx, taskId, 'rename');
  const subtask = await lockSubtask(ctx, taskId, subtaskId);
  const next = name.trim();
  await ctx.db.execute(sql`update subtasks set name = ${next}, updated_at = now() where id = ${subtaskId}`);
  return finishChecklistChange(ctx, task, next === subtask.name ? `kept the subtask name "${next}"` : `renamed subtask "${subtask.name}" to "${next}"`);
}

export async function moveSubtask(ctx: Ctx, taskId: number, subtaskId: number, order: number): Promise<TaskWithHistory> {
  const task = await beginChecklistChange(ctx, taskId, 'move');
  const subtask = await lockSubtask(ctx, taskId, subtaskId);
  const at = await placeAt(ctx.db, scopeOf(taskId), subtaskId, order);
  return finishChecklistChange(ctx, task, `moved subtask "${subtask.name}" to position ${at}`);
}

/**
 * Checks or unchecks a subtask. A subtask shown on the board is checked exactly while its child task
 * is done, so its child is finished (status 1) or reopened (status 0) in the same transaction, with
 * the child's own status history row.
 */
export async function setSubtaskChecked(ctx: Ctx, taskId: number, subtaskId: number, isChecked: boolean): Promise<TaskWithHistory> {
  const task = await beginChecklistChange(ctx, taskId, 'check');
  const subtask = await lockSubtask(ctx, taskId, subtaskId);
  if (subtask.isChecked !== isChecked) {
    await ctx.db.execute(sql`update subtasks set is_checked = ${isChecked}, updated_at = now() where id = ${subtaskId}`);
  }
  const childEntries = subtask.childTaskId === null ? [] : await setChildrenDone(ctx, [subtask.childTaskId], isChecked, `subtask "${subtask.name}" of "${task.name}"`);
  const verb = subtask.isChecked === isChecked ? (isChecked ? 'kept checked' : 'kept unchecked') : isChecked ? 'checked' : 'unchecked';
  return finishChecklistChange(ctx, task, `${verb} subtask "${subtask.name}"`, childEntries);
}

/** Deletes a subtask and closes ranks. A linked child task stays on its board, no longer a child. */
export async function deleteSubtask(ctx: Ctx, taskId: number, subtaskId: number): Promise<TaskWithHistory> {
  const task = await beginChecklistChange(ctx, taskId, 'delete');
  const subtask = await lockSubtask(ctx, taskId, subtaskId);
  await ctx.db.execute(sql`delete from subtasks where id = ${subtaskId}`);
  await compact(ctx.db, scopeOf(taskId));
  const result = await finishChecklistChange(ctx, task, `deleted subtask "${subtask.name}"`);
  // The linked child is no longer a child of this task: its parentTaskIds change too.
  if (subtask.childTaskId !== null) await recordForTasks(ctx.db, ctx.actor, [subtask.childTaskId], HISTORY.subtasks, `no longer a subtask of "${task.name}"`);
  return result;
}
