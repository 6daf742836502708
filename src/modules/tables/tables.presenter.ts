import { sql } from 'drizzle-orm';
import type { TableColumnType } from '../../db/schema/tables.js';
import { iso } from '../../platform/http.js';
import type { TableColumnDto, TableRowDto } from './tables.schemas.js';

type Stamp = Date | string;

export interface ColumnRow {
  id: number;
  projectId: number;
  name: string;
  type: TableColumnType;
  options: string[];
  width: number;
  order: number;
  createdAt: Stamp;
  updatedAt: Stamp;
}

export interface RowRow {
  id: number;
  projectId: number;
  order: number;
  cells: Record<string, string | number | boolean>;
  createdAt: Stamp;
  updatedAt: Stamp;
}

export const COLUMN_COLUMNS = sql.raw(
  `id, project_id as "projectId", name, type, options, width, "order", created_at as "createdAt", updated_at as "updatedAt"`,
);
export const ROW_COLUMNS = sql.raw(`id, project_id as "projectId", "order", cells, created_at as "createdAt", updated_at as "updatedAt"`);

// jsonb arrives parsed from node-postgres and PGlite alike; a string would mean a driver change.
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

export const presentColumn = (r: ColumnRow): TableColumnDto => ({
  id: Number(r.id),
  projectId: Number(r.projectId),
  name: r.name,
  type: r.type,
  options: json<string[]>(r.options),
  width: Number(r.width),
  order: String(r.order),
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
});

export const presentRow = (r: RowRow): TableRowDto => ({
  id: Number(r.id),
  projectId: Number(r.projectId),
  order: String(r.order),
  cells: json<TableRowDto['cells']>(r.cells),
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
});
