import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../test/app.js';
import { queryRows, queryRowsAndCommit } from './client.js';
import { pgCode, withTransaction } from './tx.js';

const t = useTestApp();

// queryRowsAndCommit pipelines a COMMIT on a pooled PostgreSQL connection; PGlite has no pool.
describe.skipIf(!process.env.DATABASE_URL)('a last statement committed with its COMMIT behind it', () => {
  const db = () => t.database.db;
  const values = async () => (await queryRows<{ k: number; v: number }>(db(), sql`select k, v from commit_probe order by k`)).map((r) => [Number(r.k), Number(r.v)]);

  beforeAll(async () => {
    await db().execute(sql`create table commit_probe (k int primary key, v int not null, constraint commit_probe_v unique (v) deferrable initially deferred)`);
  });
  afterAll(async () => {
    await db().execute(sql`drop table commit_probe`);
  });

  it('commits with the statement, answers its rows, and leaves the connection ready for the next transaction', async () => {
    const rows = await withTransaction(db(), async ({ tx }) => {
      await tx.execute(sql`insert into commit_probe values (1, 10)`);
      return queryRowsAndCommit<{ k: number }>(tx, sql`insert into commit_probe values (2, 20) returning k`);
    });
    expect(rows!.map((r) => Number(r.k))).toEqual([2]);
    expect(await values()).toEqual([[1, 10], [2, 20]]);
    // Every pooled connection is used again: none still believes a transaction is open or ended.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        withTransaction(db(), async ({ tx }) => {
          await tx.execute(sql`insert into commit_probe values (${100 + i}, ${1000 + i})`);
          throw new Error('rolled back');
        }).catch((e: Error) => expect(e.message).toBe('rolled back')),
      ),
    );
    expect(await values()).toEqual([[1, 10], [2, 20]]);
  });

  it("throws the COMMIT's deferred constraint error, with nothing committed", async () => {
    const attempt = withTransaction(db(), async ({ tx }) => {
      await tx.execute(sql`insert into commit_probe values (3, 30)`);
      return queryRowsAndCommit(tx, sql`insert into commit_probe values (4, 10) returning k`);
    });
    await expect(attempt).rejects.toSatisfy((e: unknown) => pgCode(e) === '23505');
    expect(await values()).toEqual([[1, 10], [2, 20]]);
  });

  it("throws the statement's own error, with nothing committed (the COMMIT behind it rolled back)", async () => {
    const attempt = withTransaction(db(), async ({ tx }) => {
      await tx.execute(sql`insert into commit_probe values (5, 50)`);
      return queryRowsAndCommit(tx, sql`insert into commit_probe values (1, 60) returning k`);
    });
    await expect(attempt).rejects.toSatisfy((e: unknown) => pgCode(e) === '23505');
    expect(await values()).toEqual([[1, 10], [2, 20]]);
    const after = await withTransaction(db(), async ({ tx }) => queryRows<{ n: number }>(tx, sql`select count(*)::int as n from commit_probe`));
    expect(Number(after[0]!.n)).toBe(2);
  });
});
