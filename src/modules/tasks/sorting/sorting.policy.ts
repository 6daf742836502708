import type { Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { notFound } from '../../../platform/errors.js';
import { authorizeColumn, type ColumnAccess } from '../tasks.policy.js';

/**
 * routes.md "Task sorting": sorting a column rewrites the positions everyone sees, as a move does,
 * so it takes the move rule (S:member on the column's project). A column of another project than
 * the path's does not exist there (404).
 */
export async function authorizeColumnSort(db: Queryable, actor: Actor, projectId: number, stageId: number): Promise<ColumnAccess> {
  const column = await authorizeColumn(db, actor, stageId, 'move');
  if (column.projectId !== projectId) throw notFound('stage');
  return column;
}
