import fs, { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { cacheFileSizes } from './pglite-file-sizes.js';

// The embedded engine's relation sizes answered from memory must be the files' sizes on disk
// through everything that grows or shrinks them, and survive a restart.
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function open(dir: string): Promise<PGlite> {
  const db = await PGlite.create(dir);
  expect(cacheFileSizes(db)).toBe(true);
  return db;
}

/** What PostgreSQL believes (its lseek, now answered from memory) against the file on disk. */
async function sizes(db: PGlite, dir: string, table: string): Promise<{ believed: number; onDisk: number }> {
  const { rows } = await db.query<{ believed: number; file: string }>(
    `select pg_relation_size($1::regclass)::int as believed, pg_relation_filepath($1::regclass) as file`,
    [table],
  );
  const file = path.join(dir, rows[0]!.file);
  return { believed: rows[0]!.believed, onDisk: fs.existsSync(file) ? statSync(file).size : 0 };
}

describe('PGlite file sizes kept in memory', () => {
  it('match the files on disk through inserts, deletes, vacuum truncation, TRUNCATE and a restart, and spare the fstat calls', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pglite-sizes-'));
    dirs.push(dir);
    let db = await open(dir);
    await db.exec(`create table t (id int primary key, body text); create index t_body on t (body)`);
    const check = async () => {
      for (const table of ['t', 't_body', 't_pkey']) {
        const { believed, onDisk } = await sizes(db, dir, table);
        expect(believed, table).toBe(onDisk);
      }
    };
    await db.exec(`insert into t select i, repeat(md5(i::text), 20) from generate_series(1, 5000) i`);
    await db.exec('checkpoint');
    await check();
    expect((await sizes(db, dir, 't')).believed).toBeGreaterThan(8192 * 10);

    const calls = { fstat: 0 };
    const fstatSync = fs.fstatSync;
    (fs as { fstatSync: unknown }).fstatSync = (...args: Parameters<typeof fs.fstatSync>) => (calls.fstat++, fstatSync(...args));
    try {
      for (let i = 0; i < 50; i++) await db.query('select count(*) from t where id = $1', [i]);
    } finally {
      (fs as { fstatSync: unknown }).fstatSync = fstatSync;
    }
    expect(calls.fstat).toBe(0);

    await db.exec('delete from t where id > 100');
    await db.exec('vacuum t');
    await db.exec('checkpoint');
    await check();
    expect((await sizes(db, dir, 't')).believed).toBeLessThan(8192 * 10);
    await db.exec(`insert into t select i, repeat('x', 500) from generate_series(101, 3000) i; checkpoint`);
    await check();
    await db.exec(`truncate t; insert into t values (1, 'one'); checkpoint`);
    await check();
    await db.exec('vacuum full t');
    await db.exec('checkpoint');
    await check();

    await db.close();
    db = await open(dir);
    expect((await db.query<{ n: number }>('select count(*)::int as n from t')).rows[0]!.n).toBe(1);
    await db.exec(`insert into t select i, 'again' from generate_series(2, 2000) i; checkpoint`);
    await check();
    await db.close();
  });
});
