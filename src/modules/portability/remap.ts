import { JSON_ID_KEYS, type TableInfo } from './catalogue.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** How ids of the archive become ids of this database (the import's maps, or the fingerprint's ranks). */
export interface Resolver {
  /** The new id of a row of `table`; undefined when the archive did not bring it (or it was skipped). */
  id(table: string, old: number): number | undefined;
  /** The new key of a stored file named in text; undefined to leave the text as it is. */
  fileKey(old: string): string | undefined;
  /** Whether `table`'s rows are in place yet (a reference to a later table is filled in afterwards). */
  loaded(table: string): boolean;
  /** The table a value under key `id` of a JSON keyed by `table`'s ids names (a `user` column's cells name users), if any. */
  valueTable?(table: string, id: number): string | undefined;
}

export interface Rewritten {
  row: Record<string, unknown> | null;
  /** References to fill once their table is loaded: [column, old id]. */
  later: [string, number][];
  /** What was dropped or emptied, and why. */
  notes: string[];
}

function remapJson(value: unknown, resolve: Resolver): unknown {
  if (Array.isArray(value)) return value.map((v) => remapJson(v, resolve));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const table = JSON_ID_KEYS[key];
    if (table && typeof v === 'number') out[key] = resolve.id(table, v) ?? null;
    else if (table && Array.isArray(v)) out[key] = v.map((id) => (typeof id === 'number' ? resolve.id(table, id) : undefined)).filter((id) => id !== undefined);
    else out[key] = remapJson(v, resolve);
  }
  return out;
}

/**
 * One archived row as it goes into this database: the organization replaced, every reference
 * (foreign key, soft reference, id inside JSON, file key inside text) translated. A reference the
 * archive cannot satisfy empties a nullable column and drops the row otherwise; one to a table not
 * loaded yet (or to its own table) is answered in `later`.
 */
export function rewriteRow(table: TableInfo, source: Record<string, unknown>, organizationId: number, resolve: Resolver): Rewritten {
  const row: Record<string, unknown> = { ...source };
  const later: [string, number][] = [];
  const notes: string[] = [];
  if ('organization_id' in row) row.organization_id = organizationId;
  for (const ref of table.refs) {
    const value = row[ref.column];
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      row[ref.column] = value.map((v) => resolve.id(ref.table, Number(v))).filter((v) => v !== undefined);
      continue;
    }
    const old = Number(value);
    if (ref.table === table.name || !resolve.loaded(ref.table)) {
      row[ref.column] = null;
      later.push([ref.column, old]);
      continue;
    }
    const found = resolve.id(ref.table, old);
    if (found !== undefined) row[ref.column] = found;
    else if (ref.nullable) {
      row[ref.column] = null;
      notes.push(`${table.name}.${ref.column}: emptied, the ${ref.table} row it named is not in the archive`);
    } else {
      return { row: null, later: [], notes: [`${table.name}: rows left out, the ${ref.table} row they belong to is not in the archive`] };
    }
  }
  for (const column of table.rule.jsonIds ?? []) if (row[column] !== undefined) row[column] = remapJson(row[column], resolve);
  for (const [column, target] of Object.entries(table.rule.jsonKeys ?? {})) {
    const cells = row[column];
    if (!cells || typeof cells !== 'object') continue;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(cells)) {
      const id = resolve.id(target, Number(key));
      const names = resolve.valueTable?.(target, Number(key));
      if (id !== undefined) out[String(id)] = names && typeof v === 'number' ? (resolve.id(names, v) ?? null) : v;
    }
    row[column] = out;
  }
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === 'string' && value.length >= 36 && column !== 'key') row[column] = value.replace(UUID, (key) => resolve.fileKey(key) ?? key);
  }
  return { row, later, notes };
}
