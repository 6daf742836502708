import { sql } from 'drizzle-orm';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { HISTORY, recordHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { authorizeColumn, authorizeMove, authorizeTask } from '../tasks.policy.js';
import { loadTaskRecords, presentArchivedTask, presentTask } from '../tasks.presenter.js';
import type { ArchivedTaskDto, TaskDto } from '../tasks.schemas.js';
import { columnsFor, loadPlacements, lockLimited, lockTasks, placeInColumn, planRelocation, requireRoom, rewire, type LockedColumn, type Relocation } from './columns.js';
import { allOf, idArray, idIn } from '../../../db/client.js';
import { emitTaskLeft, shareTaskRecords, type TaskDeparture } from '../tasks.events.js';

export interface MoveTasksInput {
  taskIds: number[];
  stageId: number;
  order?: number;
  fromStageId?: number;
}

/**
 * Moves tasks into a column at `order` (default: the end), in the order given. Both columns are
 * written by rank (ranks.ts): only the moved rows change. A task keeps one column per project: entering a column of a
 * project it already sits in replaces that row; entering another project relocates it (the row
 * it leaves goes, and the home flag travels with it). For other modules (automation, column moves)
 * as well as POST /tasks/move.
 */
export async function moveTasks(ctx: Ctx, input: MoveTasksInput): Promise<{ tasks: TaskDto[]; history: HistoryDto[] }> {
  const { db, actor } = ctx;
  const taskIds = [...new Set(input.taskIds)];
  // The column and the tasks authorized, the tasks locked (by id), in one statement; their
  // placements read by the next, in the same round trip: it runs once the lock is held, so it reads
  // the rows as the lock's last holder left them. Refused, the placements read is dropped unseen.
  const [{ column: target, tasks: access }, placements] = await allOf(db, [
    () => authorizeMove(db, actor, input.stageId, taskIds),
    () => loadPlacements(db, taskIds),
  ]);
  const archived = access.find((t) => t.archived);
  if (archived) throw new AppError('CONFLICT', `task ${archived.id} is archived; restore it first`);

  const plans = taskIds.map((id) => planRelocation(id, placements.get(id)!, target.projectId, input.fromStageId));
  const read = new Map<number, LockedColumn>([[target.id, target]]);
  for (const p of plans) for (const row of [p.from, p.inTarget]) if (row) read.set(row.stageId, row.column);
  const columns = await lockLimited(db, actor.organizationId, read);

  const incoming = plans.filter((p) => p.from.stageId !== target.id && p.inTarget?.stageId !== target.id).length;
  // The limit as read under the lock: a concurrent limit change cannot slip in between.
  await requireRoom(db, columns.get(target.id)!, incoming);

  const changed = plans.filter((p) => p.from.stageId !== target.id).map((p) => p.taskId);
  const names = new Map(access.map((t) => [t.id, t.name]));
  const place = async (): Promise<boolean> => {
    // Within the project (the commonest move): the rows enter the column as they are ranked.
    if (plans.every((p) => p.from.projectId === target.projectId)) return placeInColumn(db, target.id, taskIds, input.order, target.projectId);
    await rewire(db, actor.organizationId, target, plans);
    await placeInColumn(db, target.id, taskIds, input.order);
    return false;
  };
  // The history record does not depend on the ranks, so it goes in the placement's round trip, and
  // so does the answer's read (read again when the placement took more than its first statement).
  const [placedAtOnce, history, loaded] = await allOf(db, [
    place,
    () =>
      recordHistory(
        db,
        actor,
        plans.map((p) => ({
          taskId: p.taskId,
          type: HISTORY.moved,
          state: p.from.stageId === target.id ? `moved within "${target.name}"` : `moved from "${columns.get(p.from.stageId)?.name ?? ''}" to "${target.name}"`,
          projectName: target.projectName,
          taskName: names.get(p.taskId)!,
        })),
        changed.length > 0 ? sql`update tasks set date_move = now(), updated_at = now() where ${idIn(sql`id`, changed)}` : undefined,
      ),
    () => loadTaskRecords(db, actor.organizationId, taskIds),
  ]);
  emitTaskLeft(db, plans.filter((p) => p.from.projectId !== target.projectId).map((p) => departure(p, columns)));
  const records = placedAtOnce ? loaded : await loadTaskRecords(db, actor.organizationId, taskIds);
  shareTaskRecords(db, records);
  return { tasks: records.map(presentTask), history };
}

/**
 * Sends a task to the archive: it leaves every board (positions become null; the dense order
 * the columns show closes up at read) and shows only in the archive lists. `stageId` names the column it is archived from and
 * must be one it sits in.
 */
export async function archiveTask(ctx: Ctx, taskId: number, input: { stageId: number }): Promise<{ task: ArchivedTaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'archive');
  if (task.archived) throw new AppError('CONFLICT', 'the task is already archived');
  await lockTasks(db, actor.organizationId, [taskId]);
  const rows = (await loadPlacements(db, [taskId])).get(taskId)!;
  const from = rows.find((r) => r.stageId === input.stageId);
  if (!from) throw new AppError('BAD_REQUEST', `the task is not in column ${input.stageId}`);
  const columns = await columnsFor(db, actor.organizationId, rows.map((r) => r.stageId));

  await db.execute(sql`update task_stages set "order" = null where task_id = ${taskId}`);
  await db.execute(sql`update tasks set archived_at = now(), updated_at = now() where id = ${taskId}`);

  const column = columns.get(from.stageId)!;
  const [history] = await recordHistory(db, actor, [
    { taskId, type: HISTORY.archived, state: `archived from "${column.name}"`, projectName: column.projectName, taskName: task.name },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [taskId]);
  return { task: presentArchivedTask(record!), history: history! };
}

/**
 * Brings an archived task back to the end of its columns, or of `stageId` when given (entering
 * that column by the move rule). Column limits apply.
 */
export async function restoreTask(ctx: Ctx, taskId: number, input: { stageId?: number }): Promise<{ task: TaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'restore');
  const target = input.stageId === undefined ? null : await authorizeColumn(db, actor, input.stageId, 'move');
  if (!task.archived) throw new AppError('CONFLICT', 'the task is not archived');
  await lockTasks(db, actor.organizationId, [taskId]);

  const before = (await loadPlacements(db, [taskId])).get(taskId)!;
  const plan = target ? planRelocation(taskId, before, target.projectId) : null;
  const columns = await columnsFor(db, actor.organizationId, [...before.map((r) => r.stageId), ...(target ? [target.id] : [])]);
  if (target && plan) await rewire(db, actor.organizationId, target, [plan]);
  const after = (await loadPlacements(db, [taskId])).get(taskId)!;
  for (const row of after) {
    await requireRoom(db, columns.get(row.stageId)!, 1);
    await placeInColumn(db, row.stageId, [taskId], undefined);
  }
  // Rows the task left while archived held no position, so no column needs compacting.
  const moved = plan !== null && plan.from.stageId !== target!.id;
  await db.execute(sql`update tasks set archived_at = null, updated_at = now() ${moved ? sql`, date_move = now()` : sql``} where id = ${taskId}`);

  const home = after.find((r) => r.pinned) ?? after[0]!;
  const column = columns.get(target?.id ?? home.stageId)!;
  const [history] = await recordHistory(db, actor, [
    { taskId, type: HISTORY.restored, state: `restored to "${column.name}"`, projectName: column.projectName, taskName: task.name },
  ]);
  if (plan && plan.from.projectId !== target!.projectId) emitTaskLeft(db, [departure(plan, columns)]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [taskId]);
  return { task: presentTask(record!), history: history! };
}

/** Where a relocated task was, for the board it left. */
const departure = (plan: Relocation, columns: Map<number, LockedColumn>): TaskDeparture => ({
  taskId: plan.taskId,
  spaceId: columns.get(plan.from.stageId)!.spaceId,
  projectId: plan.from.projectId,
  stageId: plan.from.stageId,
});
