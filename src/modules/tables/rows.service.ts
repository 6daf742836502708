import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { compact, placeAt } from '../../platform/ordering.js';
import { orderToInt } from '../../platform/schemas.js';
import { validateCells } from './cells.js';
import { emitInProject } from '../projects/projects.events.js';
import { authorizeTable } from './tables.policy.js';
import { presentRow, ROW_COLUMNS, type RowRow } from './tables.presenter.js';
import type { CreateRowInput, TableRowDto, UpdateRowInput } from './tables.schemas.js';
import { columnDefs, lockTable, rowsScope } from './table-scope.js';

async function loadRow(ctx: Ctx, projectId: number, rowId: number, lock = false): Promise<TableRowDto> {
  const [row] = await queryRows<RowRow>(
    ctx.db,
    sql`select ${ROW_COLUMNS} from table_rows
        where id = ${rowId} and project_id = ${projectId} and organization_id = ${ctx.actor.organizationId} ${lock ? sql`for update` : sql``}`,
  );
  if (!row) throw notFound('table row');
  return presentRow(row);
}

export async function createTableRow(ctx: Ctx, projectId: number, input: CreateRowInput): Promise<TableRowDto> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editRows');
  // The columns are read under the table lock, so a column deleted meanwhile cannot leave a stray cell.
  await lockTable(db, actor.organizationId, projectId);
  const { set } = await validateCells(db, actor, projectId, await columnDefs(db, projectId), input.cells ?? {});
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`insert into table_rows (organization_id, project_id, cells) values (${actor.organizationId}, ${projectId}, ${JSON.stringify(set)}::jsonb) returning id`,
  );
  const id = Number(row!.id);
  await placeAt(db, rowsScope(projectId), id, orderToInt(input.order));
  const created = await loadRow(ctx, projectId, id);
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'row.created', id, row: created });
  return created;
}

/** Sets the cells given (null empties one), keeping the others; `order` moves the row. */
export async function updateTableRow(ctx: Ctx, projectId: number, rowId: number, input: UpdateRowInput): Promise<TableRowDto> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editRows');
  await lockTable(db, actor.organizationId, projectId);
  await loadRow(ctx, projectId, rowId, true);
  if (input.cells !== undefined) {
    const { set, clear } = await validateCells(db, actor, projectId, await columnDefs(db, projectId), input.cells);
    let cells: SQL = sql`cells || ${JSON.stringify(set)}::jsonb`;
    for (const key of clear) cells = sql`(${cells}) - ${key}`;
    await db.execute(sql`update table_rows set cells = ${cells}, updated_at = now() where id = ${rowId}`);
  }
  if (input.order !== undefined) {
    await placeAt(db, rowsScope(projectId), rowId, orderToInt(input.order));
    await db.execute(sql`update table_rows set updated_at = now() where id = ${rowId}`);
  }
  const row = await loadRow(ctx, projectId, rowId);
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'row.updated', id: rowId, row });
  return row;
}

export async function deleteTableRow(ctx: Ctx, projectId: number, rowId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editRows');
  await lockTable(db, actor.organizationId, projectId);
  await loadRow(ctx, projectId, rowId, true);
  await db.execute(sql`delete from table_rows where id = ${rowId}`);
  await compact(db, rowsScope(projectId));
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'row.deleted', id: rowId });
}
