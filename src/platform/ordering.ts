import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';

/**
 * Dense positions (0..n-1) of the rows of one scope (a column's tasks, a project's columns, a
 * user's spaces). Every change locks the scope's rows first (FOR UPDATE), so concurrent moves
 * serialize instead of producing duplicates, then writes all new positions in one statement.
 */
export interface OrderedScope {
  /** Table name. */
  table: string;
  /** Column identifying a row within the scope (e.g. `id`, or `task_id` in task_stages). */
  key: string;
  /** Position column (default `order`). */
  column?: string;
  /** WHERE condition selecting the scope's rows. */
  where: SQL;
}

const ident = (name: string) => sql.identifier(name);

/** The scope's keys in position order, locked for the rest of the transaction. */
export async function lockOrder(db: Queryable, scope: OrderedScope): Promise<number[]> {
  const col = ident(scope.column ?? 'order');
  const rows = await queryRows<{ key: number }>(
    db,
    sql`select ${ident(scope.key)} as key from ${ident(scope.table)} where ${scope.where} and ${col} is not null
        order by ${col}, ${ident(scope.key)} for update`,
  );
  return rows.map((r) => Number(r.key));
}

/** Writes positions 0..n-1 in the given key order with one statement (only rows whose position changes). */
export async function writeOrder(db: Queryable, scope: OrderedScope, keys: number[]): Promise<void> {
  if (keys.length === 0) return;
  const col = ident(scope.column ?? 'order');
  const table = ident(scope.table);
  const key = ident(scope.key);
  const list = `{${keys.join(',')}}`;
  await db.execute(sql`
    update ${table} t set ${col} = v.pos
    from (select k, (ordinality - 1)::int as pos from unnest(${list}::bigint[]) with ordinality as u(k, ordinality)) v
    where t.${key} = v.k and ${scope.where} and t.${col} is distinct from v.pos`);
}

/**
 * Places `key` at `position` in the scope (clamped to the end), renumbering the others densely.
 * The key may be new to the scope (just inserted with a null position) or already in it.
 * Returns the position it got.
 */
export async function placeAt(db: Queryable, scope: OrderedScope, key: number, position: number | undefined): Promise<number> {
  const keys = (await lockOrder(db, scope)).filter((k) => k !== key);
  const at = position === undefined ? keys.length : Math.max(0, Math.min(position, keys.length));
  keys.splice(at, 0, key);
  await writeOrder(db, scope, keys);
  return at;
}

/** Renumbers the scope densely after rows left it. */
export async function compact(db: Queryable, scope: OrderedScope): Promise<void> {
  await writeOrder(db, scope, await lockOrder(db, scope));
}
