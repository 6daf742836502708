import { sql } from 'drizzle-orm';
import { idArray, idIn, queryRows, type Queryable } from '../../../db/client.js';
import { AppError } from '../../../platform/errors.js';
import type { OrderedScope } from '../../../platform/ordering.js';
import type { ColumnAccess } from '../tasks.policy.js';
import { placeByRank } from './ranks.js';

/**
 * Placement of tasks in columns. Lock order, the same for every writer so that concurrent moves
 * queue instead of deadlocking: the tasks' rows (by id), then the columns' rows (by id). Columns
 * are locked through their `stages` row, not only through the tasks in them, because an empty
 * column has no task rows to lock and a task moving in would otherwise race another one for the
 * same position. NO KEY UPDATE: it serializes placement writers yet lets foreign-key checks of
 * inserts (KEY SHARE) through.
 */


export const columnScope = (stageId: number): OrderedScope => ({ table: 'task_stages', key: 'task_id', where: sql`stage_id = ${stageId}` });

/** Locks the tasks' rows for the rest of the transaction. */
export async function lockTasks(db: Queryable, organizationId: number, taskIds: number[]): Promise<void> {
  if (taskIds.length === 0) return;
  await db.execute(
    sql`select id from tasks where ${idIn(sql`id`, taskIds)} and organization_id = ${organizationId} order by id for no key update`,
  );
}

export interface LockedColumn {
  id: number;
  name: string;
  projectId: number;
  projectName: string;
  spaceId: number;
  tasksLimit: number;
}

/** The columns' rows by id, locked (after the tasks') for the rest of the transaction when asked. */
async function readColumns(db: Queryable, organizationId: number, stageIds: number[], lock: boolean): Promise<Map<number, LockedColumn>> {
  const ids = [...new Set(stageIds)].sort((a, b) => a - b);
  if (ids.length === 0) return new Map();
  const rows = await queryRows<LockedColumn>(
    db,
    sql`select s.id, s.name, s.project_id as "projectId", p.name as "projectName", p.space_id as "spaceId", s.tasks_limit as "tasksLimit"
        from stages s join projects p on p.id = s.project_id
        where s.id = any(${idArray(ids)}) and s.organization_id = ${organizationId}
        ${lock ? sql`order by s.id for no key update of s` : sql``}`,
  );
  return new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id), projectId: Number(r.projectId), spaceId: Number(r.spaceId), tasksLimit: Number(r.tasksLimit) }]));
}

/** Locks the columns' rows (after the tasks') and answers them by id. */
export const lockColumns = (db: Queryable, organizationId: number, stageIds: number[]) => readColumns(db, organizationId, stageIds, true);

/**
 * The columns' rows by id, locked only where a WIP limit makes the count of their tasks matter (the
 * limit is then read under the lock). Placement itself needs no column lock (ranks.ts), so writers
 * of an unlimited column do not queue behind each other.
 */
export async function columnsFor(db: Queryable, organizationId: number, stageIds: number[]): Promise<Map<number, LockedColumn>> {
  return lockLimited(db, organizationId, await readColumns(db, organizationId, stageIds, false));
}

/** Locks the WIP-limited ones of columns already read, and answers all of them, the limited as read under the lock. */
export async function lockLimited(db: Queryable, organizationId: number, columns: Map<number, LockedColumn>): Promise<Map<number, LockedColumn>> {
  const limited = [...columns.values()].filter((c) => c.tasksLimit > 0).map((c) => c.id);
  if (limited.length > 0) {
    for (const [id, column] of await lockColumns(db, organizationId, limited)) columns.set(id, column);
  }
  return columns;
}

/** 400 STAGE_TASKS_LIMIT when `incoming` more tasks would overfill the (locked) column. */
export async function requireRoom(db: Queryable, column: Pick<ColumnAccess, 'id' | 'name' | 'tasksLimit'>, incoming: number): Promise<void> {
  if (column.tasksLimit <= 0 || incoming <= 0) return;
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from task_stages where stage_id = ${column.id} and "order" is not null`);
  if (Number(row?.n ?? 0) + incoming > column.tasksLimit) {
    throw new AppError('STAGE_TASKS_LIMIT', `column "${column.name}" holds at most ${column.tasksLimit} tasks`);
  }
}

/** Where a task sits: its row per project, with the column's row (unlocked). */
export interface Placement {
  taskId: number;
  projectId: number;
  stageId: number;
  order: number | null;
  pinned: boolean;
  column: LockedColumn;
}

export async function loadPlacements(db: Queryable, taskIds: number[]): Promise<Map<number, Placement[]>> {
  const rows = await queryRows<Omit<Placement, 'column'> & { name: string; projectName: string; spaceId: number; tasksLimit: number }>(
    db,
    sql`select ts.task_id as "taskId", ts.project_id as "projectId", ts.stage_id as "stageId", ts."order", ts.pinned,
          s.name, p.name as "projectName", p.space_id as "spaceId", s.tasks_limit as "tasksLimit"
        from task_stages ts join stages s on s.id = ts.stage_id join projects p on p.id = s.project_id
        where ${idIn(sql`ts.task_id`, taskIds)} order by ts.task_id, ts.project_id`,
    { prepare: 'placements' },
  );
  const map = new Map<number, Placement[]>(taskIds.map((id) => [id, []]));
  for (const r of rows) {
    const [stageId, projectId] = [Number(r.stageId), Number(r.projectId)];
    const column = { id: stageId, name: r.name, projectId, projectName: r.projectName, spaceId: Number(r.spaceId), tasksLimit: Number(r.tasksLimit) };
    map.get(Number(r.taskId))!.push({ taskId: Number(r.taskId), projectId, stageId, order: r.order === null ? null : Number(r.order), pinned: r.pinned, column });
  }
  return map;
}

/** One task's way into a target column: the row it leaves and the row it may already have in the target project. */
export interface Relocation {
  taskId: number;
  from: Placement;
  inTarget: Placement | undefined;
}

/**
 * The row a task leaves when entering a column of project P: the one in `fromStageId` when given
 * (routes.md), else its row in P, else its pinned (home) row.
 */
export function planRelocation(taskId: number, rows: Placement[], targetProjectId: number, fromStageId?: number): Relocation {
  const inTarget = rows.find((r) => r.projectId === targetProjectId);
  const from = fromStageId !== undefined ? rows.find((r) => r.stageId === fromStageId) : (inTarget ?? rows.find((r) => r.pinned) ?? rows[0]);
  if (!from) throw new AppError('BAD_REQUEST', `task ${taskId} is not in column ${fromStageId}`);
  return { taskId, from, inTarget };
}

/**
 * Rewires rows so each task sits in `target` with a null position (the caller then places it):
 * a task keeps one row per project, the moved row keeps its pinned flag, and a row that leaves
 * another project is removed — so a move to another project relocates the task, and when it was
 * the home row the new one becomes home. Then the task's own project and space follow its home row.
 */
export async function rewire(db: Queryable, organizationId: number, target: { id: number; projectId: number }, plans: Relocation[]): Promise<void> {
  if (plans.length === 0) return;
  const within = plans.filter((p) => p.from.projectId === target.projectId).map((p) => p.taskId);
  const across = plans.filter((p) => p.from.projectId !== target.projectId);
  if (within.length > 0) {
    await db.execute(
      sql`update task_stages set stage_id = ${target.id}, "order" = null where project_id = ${target.projectId} and task_id = any(${idArray(within)})`,
    );
  }
  if (across.length > 0) {
    const taskIds = across.map((p) => p.taskId);
    const projectIds = across.map((p) => p.from.projectId);
    const pinned = `{${across.map((p) => p.from.pinned).join(',')}}`;
    await db.execute(
      sql`delete from task_stages ts using unnest(${idArray(taskIds)}, ${idArray(projectIds)}) as u(task_id, project_id)
          where ts.task_id = u.task_id and ts.project_id = u.project_id`,
    );
    await db.execute(
      sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
          select ${organizationId}, u.task_id, ${target.projectId}, ${target.id}, null, u.pinned
          from unnest(${idArray(taskIds)}, ${pinned}::boolean[]) as u(task_id, pinned)
          on conflict (task_id, project_id) do update
            set stage_id = excluded.stage_id, "order" = null, pinned = task_stages.pinned or excluded.pinned`,
    );
    await db.execute(
      sql`update tasks t set project_id = ts.project_id, space_id = p.space_id
          from task_stages ts join projects p on p.id = ts.project_id
          where ts.task_id = t.id and ts.pinned and t.id = any(${idArray(taskIds)})`,
    );
  }
}

/**
 * Puts `taskIds` (rows already in the column, position null) at dense `position` (default: the
 * end) by rank (ranks.ts): only the placed rows are written, and no column lock is needed.
 */
export const placeInColumn = placeByRank;

/**
 * Renumbers columns densely (ranks without gaps), under the columns' locks: for bulk writers only.
 * Tasks leaving a column need nothing: the dense order is computed at read.
 */
export async function compactColumns(db: Queryable, stageIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(stageIds)];
  if (ids.length === 0) return;
  await db.execute(
    sql`update task_stages t set "order" = v.r
        from (select task_id, stage_id, (row_number() over (partition by stage_id order by "order", task_id) - 1)::int as r
              from task_stages where stage_id = any(${idArray(ids)}) and "order" is not null) v
        where t.task_id = v.task_id and t.stage_id = v.stage_id and t."order" <> v.r`,
  );
}
