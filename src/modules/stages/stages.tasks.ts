import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { compact, lockOrder, writeOrder, type OrderedScope } from '../../platform/ordering.js';
import { HISTORY, recordForTasks } from '../tasks/history/history.service.js';
import { emitTaskLeft } from '../tasks/tasks.events.js';

// The task_stages changes column operations need (create with tasks, delete with moveTasksTo, move to
// another project). The tasks module owns single-task moves; these are set-based, a few statements
// for any number of tasks, and write the history row (type 3, moved) for each task they touch.

export const columnScope = (stageId: number): OrderedScope => ({ table: 'task_stages', key: 'task_id', where: sql`stage_id = ${stageId}` });

interface Placed {
  taskId: number;
  stageId: number;
  order: number | null;
}

/**
 * Moves tasks of a project into one of its columns, appended in the given order. Tasks already there
 * stay put; archived tasks (no position) change column but stay off the board. Every id must be a
 * task on this project's board (400 REFERENCE_NOT_FOUND otherwise); a full column answers 400
 * STAGE_TASKS_LIMIT. Returns the ids that moved.
 */
export async function moveTasksToStage(ctx: Ctx, input: { projectId: number; stageId: number; taskIds: number[] }): Promise<number[]> {
  const { db, actor } = ctx;
  const ids = [...new Set(input.taskIds)];
  if (ids.length === 0) return [];
  const [target] = await queryRows<{ name: string; tasksLimit: number; projectName: string }>(
    db,
    sql`select s.name, s.tasks_limit as "tasksLimit", p.name as "projectName" from stages s join projects p on p.id = s.project_id
        where s.id = ${input.stageId} and s.project_id = ${input.projectId} and s.organization_id = ${actor.organizationId}
        for update of s`,
  );
  if (!target) throw new AppError('REFERENCE_NOT_FOUND', 'column not found in this project');
  const rows = await queryRows<Placed>(
    db,
    sql`select ts.task_id as "taskId", ts.stage_id as "stageId", ts."order" from task_stages ts
        where ts.project_id = ${input.projectId} and ts.organization_id = ${actor.organizationId} and ts.task_id = any(${idArray(ids)})
        for update`,
  );
  if (rows.length !== ids.length) {
    const found = new Set(rows.map((r) => Number(r.taskId)));
    throw new AppError('REFERENCE_NOT_FOUND', `tasks not on this project's board: ${ids.filter((id) => !found.has(id)).join(', ')}`);
  }
  const byId = new Map(rows.map((r) => [Number(r.taskId), r]));
  const moving = ids.filter((id) => Number(byId.get(id)!.stageId) !== input.stageId);
  if (moving.length === 0) return [];

  const staying = await lockOrder(db, columnScope(input.stageId));
  const arriving = moving.filter((id) => byId.get(id)!.order !== null);
  const limit = Number(target.tasksLimit);
  if (limit > 0 && staying.length + arriving.length > limit) {
    throw new AppError('STAGE_TASKS_LIMIT', `column "${target.name}" holds at most ${limit} tasks`);
  }
  const sources = [...new Set(moving.map((id) => Number(byId.get(id)!.stageId)))];

  await db.execute(sql`
    update task_stages set stage_id = ${input.stageId}, "order" = null
    where project_id = ${input.projectId} and task_id = any(${idArray(moving)})`);
  await writeOrder(db, columnScope(input.stageId), [...staying, ...arriving]);
  // Archived tasks moved along keep no position; restore puts them back on the board in this column.
  await db.execute(sql`update tasks set date_move = now(), updated_at = now() where id = any(${idArray(moving)})`);
  await recordForTasks(db, actor, moving, HISTORY.moved, `moved to column "${target.name}"`);
  for (const stageId of sources) await compact(db, columnScope(stageId));
  return moving;
}

/** Every task in a column, in board order (archived ones last), for moving them all elsewhere. */
export async function tasksInStage(ctx: Ctx, stageId: number): Promise<number[]> {
  const rows = await queryRows<{ taskId: number }>(
    ctx.db,
    sql`select task_id as "taskId" from task_stages where stage_id = ${stageId} order by "order" nulls last, task_id`,
  );
  return rows.map((r) => Number(r.taskId));
}

/**
 * A column changing project takes its tasks: their placement rows move to the new project, tasks
 * whose home column this is get the new project and its space, and each gets a history row. A task
 * that already sits on the target board (one column per project) blocks the move with 409.
 */
export async function carryStageTasks(
  ctx: Ctx,
  input: { stageId: number; stageName: string; target: { id: number; spaceId: number; name: string } },
): Promise<number[]> {
  const { db } = ctx;
  const rows = await queryRows<{ taskId: number; projectId: number; spaceId: number }>(
    db,
    sql`select ts.task_id as "taskId", ts.project_id as "projectId", p.space_id as "spaceId"
        from task_stages ts join projects p on p.id = ts.project_id
        where ts.stage_id = ${input.stageId} order by ts."order" nulls last, ts.task_id for update of ts`,
  );
  const ids = rows.map((r) => Number(r.taskId));
  if (ids.length === 0) return [];
  const clashes = await queryRows<{ taskId: number }>(
    db,
    sql`select task_id as "taskId" from task_stages where project_id = ${input.target.id} and task_id = any(${idArray(ids)})`,
  );
  if (clashes.length > 0) {
    throw new AppError('CONFLICT', `tasks already on the target board: ${clashes.map((c) => Number(c.taskId)).join(', ')}`);
  }
  await db.execute(sql`update task_stages set project_id = ${input.target.id} where stage_id = ${input.stageId}`);
  await db.execute(sql`
    update tasks t set updated_at = now(),
      project_id = case when ts.pinned then ${input.target.id}::bigint else t.project_id end,
      space_id = case when ts.pinned then ${input.target.spaceId}::bigint else t.space_id end
    from task_stages ts where ts.task_id = t.id and ts.stage_id = ${input.stageId}`);
  await recordForTasks(db, ctx.actor, ids, HISTORY.moved, `moved with column "${input.stageName}" to project "${input.target.name}"`);
  emitTaskLeft(db, rows.map((r) => ({ taskId: Number(r.taskId), projectId: Number(r.projectId), spaceId: Number(r.spaceId), stageId: input.stageId })));
  return ids;
}
