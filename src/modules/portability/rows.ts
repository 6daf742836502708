import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { TableInfo } from './catalogue.js';

/** Rows read per statement; fewer when they are large (see BATCH_BYTES). */
const BATCH_ROWS = 2000;
/** A batch stops once its rows pass this many bytes of JSON, so wide rows (documents) keep memory flat. */
const BATCH_BYTES = 4 * 1024 * 1024;

const ident = (name: string) => sql.identifier(name);
const list = (names: string[], prefix?: string) => sql.join(names.map((n) => (prefix ? sql`${ident(prefix)}.${ident(n)}` : ident(n))), sql`, `);

/** Which rows of a table an organization export reads. */
export function organizationScope(table: TableInfo, organizationId: number): SQL {
  if (table.scope === 'self') return sql`t.id = ${organizationId}`;
  if (table.scope === 'members') return sql`t.id in (select user_id from organization_members where organization_id = ${organizationId})`;
  return sql`t.organization_id = ${organizationId}`;
}

/**
 * Streams a table's rows as JSON text (one object per row, the omitted columns left out) in
 * primary-key order, a batch per statement, resuming after the last key read: no cursor is held
 * open (the embedded engine has none) and no batch holds more than about BATCH_BYTES.
 */
export async function* tableRows(db: Queryable, table: TableInfo, where: SQL | null, omit: string[] = []): AsyncGenerator<string> {
  const keys = table.primaryKey;
  const json = omit.reduce<SQL>((expr, column) => sql`${expr} - ${column}::text`, sql`to_jsonb(t)`);
  let after: unknown[] | null = null;
  for (;;) {
    const conditions = [where, after ? sql`(${list(keys, 't')}) > (${sql.join(after.map((v) => sql`${v}`), sql`, `)})` : null].filter((c): c is SQL => c !== null);
    const rows: { line: string; k: unknown[] }[] = await queryRows<{ line: string; k: unknown[] }>(
      db,
      sql`select line, k from (
            select line, k, n, sum(octet_length(line)) over (order by n) - octet_length(line) as before from (
              select (${json})::text as line, jsonb_build_array(${list(keys, 't')}) as k, row_number() over (order by ${list(keys, 't')}) as n
              from ${ident(table.name)} t ${conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``}
              order by ${list(keys, 't')} limit ${BATCH_ROWS}) page) sized
          where before < ${BATCH_BYTES} order by n`,
    );
    for (const row of rows) yield row.line;
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!.k;
    after = typeof last === 'string' ? (JSON.parse(last) as unknown[]) : last;
  }
}

/** Rows per table in the scope, for progress totals. */
export async function countRows(db: Queryable, tables: TableInfo[], where: (table: TableInfo) => SQL | null): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const clause = where(table);
    const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from ${ident(table.name)} t ${clause ? sql`where ${clause}` : sql``}`);
    counts[table.name] = Number(row?.n ?? 0);
  }
  return counts;
}

/**
 * Inserts rows given as JSON objects with the database's own conversion (timestamps, arrays,
 * JSON), keeping the ids they carry. Only the columns present are written, so a column the archive
 * lacks takes its default.
 */
export async function insertRows(db: Queryable, table: TableInfo, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const present = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) present.add(key);
  const columns = table.columns.filter((c) => !c.generated && present.has(c.name)).map((c) => c.name);
  await db.execute(
    sql`insert into ${ident(table.name)} (${list(columns)}) overriding system value
        select ${list(columns)} from jsonb_populate_recordset(null::${ident(table.name)}, ${JSON.stringify(rows)}::jsonb)`,
  );
}

/** `n` new ids from a table's identity sequence, ascending (so imported rows keep their order). */
export async function newIds(db: Queryable, table: string, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await queryRows<{ id: number }>(db, sql`select nextval(pg_get_serial_sequence(${table}, 'id'))::bigint as id from generate_series(1, ${n})`);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Sets columns of rows found by id: one statement per column, whatever the count. */
export async function setColumn(db: Queryable, table: string, column: string, pairs: [id: number, value: number][]): Promise<void> {
  if (pairs.length === 0) return;
  const ids = `{${pairs.map((p) => p[0]).join(',')}}`;
  const values = `{${pairs.map((p) => p[1]).join(',')}}`;
  await db.execute(
    sql`update ${ident(table)} t set ${ident(column)} = v.value from (select unnest(${ids}::bigint[]) as id, unnest(${values}::bigint[]) as value) v where t.id = v.id`,
  );
}

/** After rows were inserted with their ids: the identity sequence continues past the largest (a table keyed by text, say OAuth's records, has none). */
export async function resetSequence(db: Queryable, table: string): Promise<void> {
  const [own] = await queryRows<{ seq: string | null }>(db, sql`select pg_get_serial_sequence(${table}, 'id') as seq`);
  if (!own?.seq) return;
  await db.execute(sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${ident(table)}), 0) + 1, false)`);
}
