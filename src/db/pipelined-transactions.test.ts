import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../test/app.js';
import { allOf, queryRows, queryRowsAndCommit } from './client.js';
import { pgCode, withTransaction } from './tx.js';

const t = useTestApp();

// The pool's connections hold a transaction's BEGIN back until its first statement (PostgreSQL only).
describe.skipIf(!process.env.DATABASE_URL)('BEGIN sent with the first statement', () => {
  const db = () => t.database.db;
  const now = async (tx: Parameters<Parameters<typeof withTransaction>[1]>[0]['tx']) => (await queryRows<{ at: string }>(tx, sql`select now()::text as at`))[0]!.at;
  /** Pooled connections that the server last said were inside a transaction (pg keeps ReadyForQuery's status). */
  const openTransactions = async () => {
    const pool = (db() as unknown as { session: { client: { _clients: Array<{ _txStatus: string | null }> } } }).session.client;
    return pool._clients.filter((c) => c._txStatus !== 'I').length;
  };

  it('runs the first statement inside the transaction (one transaction time for all of them)', async () => {
    const [first, second] = await withTransaction(db(), async ({ tx }) => {
      const a = await now(tx);
      await tx.execute(sql`select pg_sleep(0.02)`);
      return [a, await now(tx)];
    });
    expect(first).toBe(second);
  });

  it('commits nothing and leaves every connection usable when the transaction sends no statement', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => withTransaction(db(), async () => i)));
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(await openTransactions()).toBe(0);
    const rows = await withTransaction(db(), async ({ tx }) => queryRows<{ one: number }>(tx, sql`select 1 as one`));
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("throws the first statement's own error, rolls back, and the connection serves the next transaction", async () => {
    const failing = withTransaction(db(), async ({ tx }) => tx.execute(sql`select * from no_such_table_here`));
    await expect(failing).rejects.toSatisfy((e: unknown) => pgCode(e) === '42P01');
    const results = await Promise.all(
      Array.from({ length: 12 }, () => withTransaction(db(), async ({ tx }) => queryRows<{ n: number }>(tx, sql`select 2 as n`))),
    );
    expect(results.flat()).toEqual(Array.from({ length: 12 }, () => ({ n: 2 })));
    expect(await openTransactions()).toBe(0);
  });

  it('commits a transaction whose only statement carries the COMMIT', async () => {
    await db().execute(sql`create table if not exists pipeline_probe (k int primary key)`);
    try {
      const rows = await withTransaction(db(), async ({ tx }) => queryRowsAndCommit<{ k: number }>(tx, sql`insert into pipeline_probe values (7) returning k`));
      expect(rows!.map((r) => Number(r.k))).toEqual([7]);
      expect(await queryRows<{ k: number }>(db(), sql`select k from pipeline_probe`)).toEqual([{ k: 7 }]);
      expect(await openTransactions()).toBe(0);
    } finally {
      await db().execute(sql`drop table pipeline_probe`);
    }
  });

  it('allOf in a transaction: statements run in the order given, and the first real error is the one thrown', async () => {
    await db().execute(sql`create table if not exists pipeline_order (k int primary key)`);
    try {
      const [, seen] = await withTransaction(db(), async ({ tx }) =>
        allOf(tx, [
          () => queryRows(tx, sql`insert into pipeline_order values (1)`),
          () => queryRows<{ n: number }>(tx, sql`select count(*)::int as n from pipeline_order`),
        ]),
      );
      expect(seen).toEqual([{ n: 1 }]);
      // The second statement runs in the transaction the first aborted: its own error is not the one reported.
      const failing = withTransaction(db(), async ({ tx }) =>
        allOf(tx, [() => queryRows(tx, sql`insert into pipeline_order values (1)`), () => queryRows(tx, sql`insert into pipeline_order values (2)`)]),
      );
      await expect(failing).rejects.toSatisfy((e: unknown) => pgCode(e) === '23505');
      expect(await queryRows<{ k: number }>(db(), sql`select k from pipeline_order order by k`)).toEqual([{ k: 1 }]);
      expect(await openTransactions()).toBe(0);
    } finally {
      await db().execute(sql`drop table pipeline_order`);
    }
  });
});
