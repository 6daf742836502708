import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { OrderedScope } from '../../platform/ordering.js';
import type { ColumnDef } from './cells.js';

/**
 * Positions of a project's table columns and rows are dense per project. Writers lock the
 * project's row first (NO KEY UPDATE: foreign-key checks still pass), so two inserts into an empty
 * table cannot both take position 0, then the scope's rows through platform/ordering.
 */
export async function lockTable(db: Queryable, organizationId: number, projectId: number): Promise<void> {
  await db.execute(sql`select id from projects where id = ${projectId} and organization_id = ${organizationId} for no key update`);
}

export const columnsScope = (projectId: number): OrderedScope => ({ table: 'table_columns', key: 'id', where: sql`project_id = ${projectId}` });
export const rowsScope = (projectId: number): OrderedScope => ({ table: 'table_rows', key: 'id', where: sql`project_id = ${projectId}` });

export async function columnDefs(db: Queryable, projectId: number): Promise<Map<number, ColumnDef>> {
  const rows = await queryRows<ColumnDef>(db, sql`select id, type, options from table_columns where project_id = ${projectId}`);
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), type: r.type, options: typeof r.options === 'string' ? JSON.parse(r.options) : r.options }]));
}
