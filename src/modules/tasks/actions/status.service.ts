import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { lockTasks } from '../board/columns.js';
import { HISTORY, recordHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { authorizeProjectColumn, authorizeTaskAction } from './actions.policy.js';
import { syncSubtasksOfChildren } from '../subtasks/child-task.service.js';


/**
 * PATCH /tasks/{taskId}/needs-attention: a reason puts the task in status 3 with it (a new reason
 * replaces the old one); null takes it out of status 3 back to 0. Null on a task that does not need
 * attention changes nothing, yet the request is still recorded (history 21), as property changes do.
 */
export async function setNeedsAttention(ctx: Ctx, taskId: number, blockReason: string | null): Promise<{ task: TaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const access = await authorizeTaskAction(db, actor, taskId, 'needsAttention');
  // The same lock, tasks first, that board moves and property changes take.
  const [row] = await queryRows<{ status: number; archived: boolean; projectName: string }>(
    db,
    sql`select t.status, t.archived_at is not null as archived,
          (select p.name from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = t.id order by ts.pinned desc, ts.project_id limit 1) as "projectName"
        from tasks t where t.id = ${taskId} and t.organization_id = ${actor.organizationId} for no key update of t`,
  );
  if (row!.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
  const status = Number(row!.status);
  const reason = blockReason?.trim() ?? null;
  if (reason !== null) {
    await db.execute(
      sql`update tasks set status = 3, block_reason = ${reason}, updated_at = now(),
            date_status_changed = case when status <> 3 then now() else date_status_changed end
          where id = ${taskId}`,
    );
    // A done child task leaving status 1 unchecks the subtask it stands for.
    if (status === 1) await syncSubtasksOfChildren(ctx, [taskId], false);
  } else if (status === 3) {
    await db.execute(sql`update tasks set status = 0, block_reason = null, date_status_changed = now(), updated_at = now() where id = ${taskId}`);
  }
  const [history] = await recordHistory(db, actor, [
    {
      taskId,
      type: HISTORY.needsAttention,
      state: reason !== null ? `needs attention: ${reason}` : 'no longer needs attention',
      projectName: row!.projectName ?? '',
      taskName: access.name,
    },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [taskId]);
  return { task: presentTask(record!), history: history! };
}

/**
 * PATCH /projects/{projectId}/stages/{stageId}/finish-tasks: every task on the board in the column
 * that is not done becomes done (status 1), with a status history row (4) each. Answers the tasks
 * it changed, in board order; a column with nothing to finish answers empty arrays.
 */
export async function finishColumnTasks(ctx: Ctx, projectId: number, stageId: number): Promise<{ tasks: TaskDto[]; history: HistoryDto[] }> {
  const { db, actor } = ctx;
  const column = await authorizeProjectColumn(db, actor, projectId, stageId, 'finishColumn');
  const unfinished = sql`select ts.task_id as id, t.name from task_stages ts join tasks t on t.id = ts.task_id
    where ts.stage_id = ${stageId} and ts."order" is not null and t.archived_at is null and t.status <> 1`;
  const candidates = await queryRows<{ id: number }>(db, sql`${unfinished} order by ts."order"`);
  await lockTasks(db, actor.organizationId, candidates.map((c) => Number(c.id)));
  // Read again under the locks: a task may have left the column or changed status meanwhile.
  const rows = await queryRows<{ id: number; name: string }>(
    db,
    sql`${unfinished} and ts.task_id = any(${idArray(candidates.map((c) => Number(c.id)))}) order by ts."order"`,
  );
  const ids = rows.map((r) => Number(r.id));
  if (ids.length === 0) return { tasks: [], history: [] };
  await db.execute(
    sql`update tasks set status = 1, block_reason = null, date_status_changed = now(), updated_at = now() where id = any(${idArray(ids)})`,
  );
  await syncSubtasksOfChildren(ctx, ids, true);
  const history = await recordHistory(
    db,
    actor,
    rows.map((r) => ({ taskId: Number(r.id), type: HISTORY.status, state: `marked done with every task of "${column.name}"`, projectName: column.projectName, taskName: r.name })),
  );
  const records = await loadTaskRecords(db, actor.organizationId, ids);
  return { tasks: records.map(presentTask), history };
}
