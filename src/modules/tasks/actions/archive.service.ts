import { sql } from 'drizzle-orm';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { columnsFor, loadPlacements, lockTasks } from '../board/columns.js';
import { HISTORY, recordHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { loadTaskRecords, presentArchivedTask } from '../tasks.presenter.js';
import type { ArchivedTaskDto } from '../tasks.schemas.js';
import { authorizeTaskActions } from './actions.policy.js';
import { idArray } from '../../../db/client.js';


/**
 * PATCH /tasks/archive: the single archive (board.service's archiveTask) for many tasks at once,
 * with the same rules, all or nothing: every task visible (404), archivable by the caller (S:member*,
 * 403), not archived yet (409) and in the column named (400). Each leaves every board, the columns
 * close ranks once, and each gets its history row (16). A fixed number of statements for any count.
 */
export async function archiveTasks(ctx: Ctx, items: Array<{ taskId: number; stageId: number }>): Promise<{ tasks: ArchivedTaskDto[]; history: HistoryDto[] }> {
  const { db, actor } = ctx;
  const taskIds = items.map((i) => i.taskId);
  const twice = taskIds.find((id, i) => taskIds.indexOf(id) !== i);
  if (twice !== undefined) {
    throw new AppError('VALIDATION_FAILED', `items: task ${twice} is named twice`, [{ path: '/items', message: 'each task once' }]);
  }
  const access = await authorizeTaskActions(db, actor, taskIds, 'archiveMany');
  const archived = access.find((t) => t.archived);
  if (archived) throw new AppError('CONFLICT', `task ${archived.id} is already archived`);

  await lockTasks(db, actor.organizationId, taskIds);
  const placements = await loadPlacements(db, taskIds);
  for (const { taskId, stageId } of items) {
    if (!placements.get(taskId)!.some((p) => p.stageId === stageId)) throw new AppError('BAD_REQUEST', `task ${taskId} is not in column ${stageId}`);
  }
  const stageIds = [...placements.values()].flat().map((p) => p.stageId);
  const columns = await columnsFor(db, actor.organizationId, stageIds);

  await db.execute(sql`update task_stages set "order" = null where task_id = any(${idArray(taskIds)})`);
  await db.execute(sql`update tasks set archived_at = now(), updated_at = now() where id = any(${idArray(taskIds)})`);

  const names = new Map(access.map((t) => [t.id, t.name]));
  const history = await recordHistory(
    db,
    actor,
    items.map(({ taskId, stageId }) => {
      const column = columns.get(stageId)!;
      return { taskId, type: HISTORY.archived, state: `archived from "${column.name}"`, projectName: column.projectName, taskName: names.get(taskId)! };
    }),
  );
  const records = await loadTaskRecords(db, actor.organizationId, taskIds);
  return { tasks: records.map(presentArchivedTask), history };
}
