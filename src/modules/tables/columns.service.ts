import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { TableColumnType } from '../../db/schema/tables.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { compact, placeAt } from '../../platform/ordering.js';
import { orderToInt } from '../../platform/schemas.js';
import { emitInProject } from '../projects/projects.events.js';
import { authorizeTable } from './tables.policy.js';
import { COLUMN_COLUMNS, presentColumn, presentRow, ROW_COLUMNS, type ColumnRow, type RowRow } from './tables.presenter.js';
import type { CreateColumnInput, TableColumnDto, TableQueryInput, TableRowDto, UpdateColumnInput } from './tables.schemas.js';
import { columnsScope, lockTable } from './table-scope.js';

/** A table wider than this is no longer a table people read; it also bounds GET …/table's columns. */
const MAX_COLUMNS = 100;

/** The project's table: every column, and one page of rows (the total goes in X-Total-Count). */
export async function getTable(ctx: Ctx, projectId: number, q: TableQueryInput): Promise<{ columns: TableColumnDto[]; rows: TableRowDto[]; total: number }> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'read');
  const limit = q.limit ?? 1000;
  const offset = q.offset ?? 0;
  const [columns, rows, count] = await Promise.all([
    queryRows<ColumnRow>(db, sql`select ${COLUMN_COLUMNS} from table_columns where project_id = ${projectId} order by "order", id`),
    queryRows<RowRow>(db, sql`select ${ROW_COLUMNS} from table_rows where project_id = ${projectId} order by "order", id limit ${limit} offset ${offset}`),
    queryRows<{ n: number }>(db, sql`select count(*)::int as n from table_rows where project_id = ${projectId}`),
  ]);
  return { columns: columns.map(presentColumn), rows: rows.map(presentRow), total: Number(count[0]?.n ?? 0) };
}

/** Options belong to select columns only; other types hold none. */
function optionsFor(type: TableColumnType, options: string[] | undefined): string[] {
  if (type === 'select') return options ?? [];
  if (options && options.length > 0) {
    throw new AppError('VALIDATION_FAILED', '/options apply to select columns only', [{ path: '/options', message: 'must be empty unless type is select' }]);
  }
  return [];
}

export async function createTableColumn(ctx: Ctx, projectId: number, input: CreateColumnInput): Promise<TableColumnDto> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editColumns');
  const options = optionsFor(input.type, input.options);
  await lockTable(db, actor.organizationId, projectId);
  const [count] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from table_columns where project_id = ${projectId}`);
  if (Number(count!.n) >= MAX_COLUMNS) throw new AppError('VALIDATION_FAILED', `a table holds at most ${MAX_COLUMNS} columns`);
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`insert into table_columns (organization_id, project_id, name, type, options, width)
        values (${actor.organizationId}, ${projectId}, ${input.name.trim()}, ${input.type}, ${JSON.stringify(options)}::jsonb, ${input.width ?? 200})
        returning id`,
  );
  const id = Number(row!.id);
  await placeAt(db, columnsScope(projectId), id, orderToInt(input.order));
  const column = await loadColumn(ctx, projectId, id);
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'column.created', id, column });
  return column;
}

async function loadColumn(ctx: Ctx, projectId: number, columnId: number, lock = false): Promise<TableColumnDto> {
  const [row] = await queryRows<ColumnRow>(
    ctx.db,
    sql`select ${COLUMN_COLUMNS} from table_columns
        where id = ${columnId} and project_id = ${projectId} and organization_id = ${ctx.actor.organizationId} ${lock ? sql`for update` : sql``}`,
  );
  if (!row) throw notFound('table column');
  return presentColumn(row);
}

/**
 * Changes a column. Cells must keep fitting their column: a new type empties the column, and
 * options taken away from a select column empty the cells that held them.
 */
export async function updateTableColumn(ctx: Ctx, projectId: number, columnId: number, input: UpdateColumnInput): Promise<TableColumnDto> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editColumns');
  await lockTable(db, actor.organizationId, projectId);
  const before = await loadColumn(ctx, projectId, columnId, true);
  const type = input.type ?? before.type;
  const options = optionsFor(type, input.options ?? (type === before.type ? before.options : undefined));

  const set: SQL[] = [sql`updated_at = now()`, sql`options = ${JSON.stringify(options)}::jsonb`];
  if (input.name !== undefined) set.push(sql`name = ${input.name.trim()}`);
  if (input.type !== undefined) set.push(sql`type = ${type}`);
  if (input.width !== undefined) set.push(sql`width = ${input.width}`);
  await db.execute(sql`update table_columns set ${sql.join(set, sql`, `)} where id = ${columnId}`);

  const key = String(columnId);
  if (type !== before.type) {
    await db.execute(sql`update table_rows set cells = cells - ${key}, updated_at = now() where project_id = ${projectId} and cells -> ${key} is not null`);
  } else if (type === 'select') {
    await db.execute(
      sql`update table_rows set cells = cells - ${key}, updated_at = now()
          where project_id = ${projectId} and cells -> ${key} is not null
            and not exists (select 1 from jsonb_array_elements_text(${JSON.stringify(options)}::jsonb) o(v) where o.v = cells ->> ${key})`,
    );
  }
  if (input.order !== undefined) await placeAt(db, columnsScope(projectId), columnId, orderToInt(input.order));
  const column = await loadColumn(ctx, projectId, columnId);
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'column.updated', id: columnId, column });
  return column;
}

/** Deletes a column and its cells from every row; the other columns close ranks. */
export async function deleteTableColumn(ctx: Ctx, projectId: number, columnId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeTable(db, actor, projectId, 'editColumns');
  await lockTable(db, actor.organizationId, projectId);
  await loadColumn(ctx, projectId, columnId, true);
  const key = String(columnId);
  await db.execute(sql`update table_rows set cells = cells - ${key}, updated_at = now() where project_id = ${projectId} and cells -> ${key} is not null`);
  await db.execute(sql`delete from table_columns where id = ${columnId}`);
  await compact(db, columnsScope(projectId));
  emitInProject(ctx, 'table.updated', projectId, { projectId, change: 'column.deleted', id: columnId });
}
