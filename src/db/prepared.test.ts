import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../test/app.js';
import { queryRows } from './client.js';
import { pgCode, withTransaction } from './tx.js';

const t = useTestApp();

// Named statements run prepared on both databases (node-postgres on PostgreSQL, pglite-prepared.ts
// on PGlite): the answers must be those of the plain path, errors included.
describe('statements run prepared', () => {
  const db = () => t.database.db;
  const probe = (k: unknown, v: unknown, at: unknown, doc: unknown, ids: unknown) =>
    sql`insert into prepared_probe (k, v, at, doc, ids) values (${k}, ${v}, ${at}, ${doc}, ${ids}::bigint[]) returning k, v, at, doc, ids`;

  beforeAll(async () => {
    await db().execute(sql`create table prepared_probe (k int primary key, v text, at timestamptz, doc jsonb, ids bigint[])`);
  });
  afterAll(async () => {
    await db().execute(sql`drop table prepared_probe`);
  });

  it('answers the same rows as the plain path, on first use and after, in and out of a transaction', async () => {
    const at = '2026-11-26T10:00:00.000Z';
    const doc = JSON.stringify({ a: [1, 'two'], b: null });
    const plain = await withTransaction(db(), ({ tx }) => queryRows(tx, probe(1, 'one', at, doc, '{1,2}')));
    const first = await withTransaction(db(), ({ tx }) => queryRows(tx, probe(2, 'one', at, doc, '{1,2}'), { prepare: 'probe' }));
    const again = await withTransaction(db(), ({ tx }) => queryRows(tx, probe(3, null, null, null, null), { prepare: 'probe' }));
    expect(first).toEqual([{ ...plain[0], k: 2 }]);
    expect(again).toEqual([{ k: 3, v: null, at: null, doc: null, ids: null }]);
    const read = sql`select count(*)::int as n, max(k) as top from prepared_probe where v = ${'one'}`;
    expect(await queryRows(db(), read, { prepare: 'probe-read' })).toEqual(await queryRows(db(), read));
  });

  it("throws the statement's error with its code, rolls back, and the statement runs again afterwards", async () => {
    const attempt = withTransaction(db(), async ({ tx }) => {
      await queryRows(tx, probe(10, 'ten', null, null, null), { prepare: 'probe' });
      return queryRows(tx, probe(1, 'clash', null, null, null), { prepare: 'probe' });
    });
    await expect(attempt).rejects.toSatisfy((e: unknown) => pgCode(e) === '23505');
    expect(await queryRows(db(), sql`select k from prepared_probe where k = 10`)).toEqual([]);
    const bad = withTransaction(db(), ({ tx }) => queryRows(tx, sql`select k from prepared_probe where nope = ${1}`, { prepare: 'probe-bad' }));
    await expect(bad).rejects.toSatisfy((e: unknown) => pgCode(e) === '42703');
    const after = await withTransaction(db(), ({ tx }) => queryRows<{ k: number }>(tx, probe(11, 'eleven', null, null, null), { prepare: 'probe' }));
    expect(after.map((r) => r.k)).toEqual([11]);
  });
});
