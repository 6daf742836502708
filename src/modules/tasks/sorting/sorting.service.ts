import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { lockOrder, writeOrder } from '../../../platform/ordering.js';
import { emitInProject } from '../../projects/projects.events.js';
import { columnScope, lockColumns } from '../board/columns.js';
import { authorizeColumnSort } from './sorting.policy.js';
import type { SortInput, SortKey, SortResultDto } from './sorting.schemas.js';

// The value each sort compares; null means "empty" and sorts last in both directions.
const SORT_VALUE: Record<SortKey, SQL> = {
  dateEnd: sql`coalesce(t.date_end, t.date_end_without_time::timestamp at time zone 'UTC')`,
  createdAt: sql`t.created_at`,
  color: sql`upper(nullif(t.color, ''))`,
  importance: sql`nullif(t.importance, -1)`,
  assignee: sql`(select min(lower(u.name)) from task_assignees a join users u on u.id = a.user_id where a.task_id = t.id)`,
};

const DEFAULT_DIRECTION: Record<SortKey, 'asc' | 'desc'> = { dateEnd: 'asc', createdAt: 'asc', color: 'asc', importance: 'desc', assignee: 'asc' };

/**
 * Sorts a column once, for everyone: its positions are rewritten densely in the chosen order, ties
 * keeping their current order. The column's row is locked first and then its task rows (as moves
 * do), so a concurrent move waits instead of interleaving. Archived tasks hold no position and stay
 * out. Not a task change: no history.
 */
export async function sortColumn(ctx: Ctx, projectId: number, stageId: number, input: SortInput): Promise<SortResultDto> {
  const { db, actor } = ctx;
  await authorizeColumnSort(db, actor, projectId, stageId);
  await lockColumns(db, actor.organizationId, [stageId]);
  const scope = columnScope(stageId);
  const current = await lockOrder(db, scope);
  if (current.length === 0) return [];

  const direction = sql.raw(input.direction ?? DEFAULT_DIRECTION[input.by]);
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select t.id from unnest(${idArray(current)}) with ordinality as cur(id, pos)
        join tasks t on t.id = cur.id
        order by ${SORT_VALUE[input.by]} ${direction} nulls last, cur.pos`,
  );
  const sorted = rows.map((r) => Number(r.id));
  await writeOrder(db, scope, sorted);
  const result = sorted.map((taskId, i) => ({ taskId, order: String(i) }));
  emitInProject(ctx, 'stage.sorted', projectId, { stageId, projectId, by: input.by, direction: input.direction ?? DEFAULT_DIRECTION[input.by], tasks: result });
  return result;
}
