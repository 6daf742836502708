import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import v8 from 'node:v8';
import { cacheFileSizes } from './pglite-file-sizes.js';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { sql, type ExtractTablesWithRelations, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Config } from '../config.js';
import { runMigrations } from './migrate.js';
import { Outage } from './outage.js';
import { timeQueries, type QueryTiming } from './timing.js';
import { migrateDirect, openPool, unnamed } from './pool.js';
import { lockDataDir } from './data-dir-lock.js';
import { AS_TEXT, ownTransaction, pgliteOf, preparing, queryPrepared, withoutDriverParsers } from './pglite-prepared.js';
import { TEXT_TYPE_OIDS } from './text-types.js';
import { corked, pipelineTransactions, resetBoundary, sendWithCommit } from './pipelined-transactions.js';

// Without the schema: drizzle would build a relational query builder per table (80-odd) for every
// transaction it opens, and this code writes its queries with the SQL builder and `sql` alone.
export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = PgTransaction<PgQueryResultHKT, Record<string, never>, ExtractTablesWithRelations<Record<string, never>>>;
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Every statement's timing (metrics), from sent to answered: a wait for the embedded engine counts, one for a pooled connection does not. */
  queries: QueryTiming;
  /** The pool's connections right now (PostgreSQL only: the embedded engine has one, no pool). */
  pool?: () => { total: number; idle: number; waiting: number };
  /** Bytes of WebAssembly memory the embedded engine has grown to (PGlite only; it never shrinks). */
  wasmMemoryBytes?: () => number;
  /** Whether the database is in an outage (every statement then fails at once), and its fault counts. */
  outage: Outage;
  /**
   * For long background work (exports, imports, reindexing): on PostgreSQL a small pool of its own
   * whose statements may run DATABASE_JOB_QUERY_TIMEOUT_MS; on PGlite the database itself.
   */
  jobDb: Db;
}

export type { QueryTiming } from './timing.js';

// int8 (counts, bigint ids in raw SQL) as JS numbers: ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export interface OpenOptions {
  /** A migrated data-directory image (tests load one per file instead of migrating). */
  loadDataDir?: Blob;
  /** Hears what a start is doing that takes a while (migrations to apply). */
  progress?: (line: string) => void;
}

export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  let database: Database;
  const queries: QueryTiming = { inFlight: 0 };
  if (config.databaseUrl) {
    // Migrations run on a session of their own, without the request-sized timeouts.
    if (!config.skipMigrations) await migrateDirect(config, options.progress);
    database = openPool(config, queries);
  } else {
    if (!config.embeddedOptimizingCompiler) baselineWasmOnly();
    // Loaded here, not at start: a server on PostgreSQL never holds PGlite (issue 42). Before the
    // data directory's lock, which nothing would release if loading failed.
    const [pglite, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
    const { PGlite } = pglite;
    const dataDir = config.dataDir;
    const inMemory = dataDir.startsWith('memory://');
    if (!inMemory) mkdirSync(dataDir, { recursive: true });
    const release = inMemory ? () => {} : lockDataDir(dataDir);
    const client = await PGlite.create(inMemory ? undefined : dataDir, { loadDataDir: options.loadDataDir, parsers: AS_TEXT, startParams: [...PGlite.defaultStartParams, ...EMBEDDED_MEMORY] }).catch((err: unknown) => {
      release();
      throw err;
    });
    preparing(client, pglite);
    cacheFileSizes(client);
    withoutDriverParsers(client);
    // Inside a transaction PGlite hands out its own query()/exec(), so those are timed as well.
    for (const method of ['query', 'exec', 'queryPrepared']) timeQueries(client, queries, method);
    const transaction = client.transaction.bind(client);
    const turn = oneTransactionPerTurn();
    client.transaction = (fn) =>
      turn(() =>
        transaction((tx) => {
          ownTransaction(tx, client);
          withoutDriverParsers(tx);
          for (const method of ['query', 'exec']) timeQueries(tx, queries, method);
          return fn(tx);
        }),
      );
    const db = drizzlePglite(client) as unknown as Db;
    // Nothing to lose a connection to: only its disk can fail it (counted, never an outage).
    const outage = new Outage(async () => {});
    queries.failed = (error) => outage.report(error);
    database = {
      kind: 'pglite',
      db,
      jobDb: db,
      ping: async () => void (await client.query('select 1')),
      close: () => client.close().finally(release),
      wasmMemoryBytes: () => (client as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod?.HEAPU8?.buffer.byteLength ?? 0,
      queries,
      outage,
    };
    if (!config.skipMigrations) await runMigrations(database, options.progress);
  }
  return database;
}

export { sql };

/**
 * The embedded engine's memory, sized for a small server (issue 42). PGlite's defaults are a
 * PostgreSQL server's (shared_buffers 128 MB, maintenance_work_mem 64 MB, wal_buffers 4 MB,
 * temp_buffers 8 MB) and its WebAssembly memory, which grows and never shrinks, reached 188 MB on a
 * bare open against 128 MB (PGlite's initial size, the floor) with these; a bare open's resident
 * memory went from 304 to 180 MB. Pages past shared_buffers come from the OS page cache of the
 * data directory's files, a copy instead of a disk read: shared_buffers 16 MB instead of 32 took 22
 * MiB off the idle server and 14 off its peak under load, at no measured cost in the load's rates
 * (docs/performance.md, issue 42, fourth stop). work_mem stays PostgreSQL's 4 MB: the board's sorts
 * and the analytics reports' hashes need it.
 */
const EMBEDDED_MEMORY = ['shared_buffers=16MB', 'wal_buffers=1MB', 'maintenance_work_mem=16MB', 'temp_buffers=2MB', 'work_mem=4MB'].flatMap((s) => ['-c', s]);

/**
 * PGlite's WebAssembly (9 MB, the whole of PostgreSQL) compiled by V8's baseline compiler alone
 * (Liftoff), without the optimizing tier that recompiles its hot functions in the background (issue
 * 42). Measured on a bare open: 60 MB less resident memory (the optimized code and the compiler's
 * freed-but-kept heap), and a fresh data directory's initdb and migrations in about half the CPU;
 * the cost is slower warm queries (docs/performance.md). A V8 flag, so for the whole process, and
 * read when a module is compiled: set before PGlite compiles its own. No other WebAssembly here is
 * hot (undici's HTTP parser).
 */
function baselineWasmOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
}

/**
 * PGlite runs each statement synchronously on this thread, so queued transactions ran back to back
 * as one chain of promise callbacks and the event loop read no socket until the queue drained:
 * requests that arrived meanwhile waited whole rounds (p99 of seconds at 32 connections against a
 * p50 of a quarter second). Transactions here take turns, one per turn of the event loop, in the
 * order they asked, so arriving requests are read between any two and served in arrival order.
 */
function oneTransactionPerTurn(): <T>(run: () => Promise<T>) => Promise<T> {
  const waiting: Array<() => void> = [];
  let busy = false;
  const next = () => {
    const start = waiting.shift();
    busy = start !== undefined;
    start?.();
  };
  return async (run) => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!busy) next();
    });
    try {
      return await run();
    } finally {
      setImmediate(next);
    }
  };
}

const TEXT_TYPES = {
  getTypeParser: ((id: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_OIDS.has(id) ? (value: string) => value : pg.types.getTypeParser(id, format)) as typeof pg.types.getTypeParser,
};

interface DrizzleInternals {
  dialect: { sqlToQuery(query: ReturnType<typeof sql>): { sql: string; params: unknown[] } };
  session: { client: unknown };
}

const statementNames = new Map<string, string>();

/** A stable name per statement text, so PostgreSQL parses and plans it once per connection. */
function statementName(prefix: string, text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `${prefix}:${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

export interface QueryOptions {
  /**
   * Hot statements with a fixed text: run as a named prepared statement (parsed and planned once per
   * pooled connection on PostgreSQL, once per database on PGlite). Never for text that varies with
   * the input.
   */
  prepare?: string;
}

/** Runs raw SQL and returns its rows (both drivers answer `{ rows }`). */
export async function queryRows<T extends object>(db: Queryable, query: ReturnType<typeof sql>, options: QueryOptions = {}): Promise<T[]> {
  const internals = db as unknown as DrizzleInternals;
  const client = internals.session?.client;
  // On PostgreSQL, straight to the driver: drizzle's per-call query object and tracing cost more
  // than the query itself on the hot read paths.
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const { sql: text, params } = internals.dialect.sqlToQuery(query);
    const name = options.prepare && !unnamed.has(client) ? statementName(options.prepare, text) : undefined;
    const result = await client.query<T>({ name, text, values: params, types: TEXT_TYPES });
    return result.rows;
  }
  const pglite = options.prepare ? pgliteOf(client) : null;
  if (pglite) {
    const { sql: text, params } = internals.dialect.sqlToQuery(query);
    return queryPrepared<T>(pglite, statementName(options.prepare!, text), text, params);
  }
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Runs a transaction's last statement with its COMMIT in the same packet (PostgreSQL; see
 * db/pipelined-transactions.ts), so a row lock the statement takes is held for the commit alone.
 * Answers the statement's rows once committed; throws the statement's error (the COMMIT then rolled
 * back) or the COMMIT's (a deferred constraint). Null on PGlite or outside a transaction: nothing
 * was run, the caller runs the statement and commits as usual.
 */
export async function queryRowsAndCommit<T extends object>(db: Queryable, query: ReturnType<typeof sql>, options: QueryOptions = {}): Promise<T[] | null> {
  const internals = db as unknown as DrizzleInternals;
  const client = internals.session?.client;
  if (!(client instanceof pg.Client) || !('rollback' in db)) return null;
  const { sql: text, params } = internals.dialect.sqlToQuery(query);
  const name = options.prepare && !unnamed.has(client) ? statementName(options.prepare, text) : undefined;
  return (await sendWithCommit(client as pg.PoolClient, { name, text, values: params, types: TEXT_TYPES } as pg.QueryConfig)) as T[];
}

/** Ids as ONE bigint[] parameter: the statement text stays the same whatever the count. */
export const idArray = (ids: Iterable<number>) => sql`${`{${[...ids].join(',')}}`}::bigint[]`;

/**
 * `column` is one of `ids`: `= $1` for one id (the commonest call), `= any($1::bigint[])` otherwise.
 * A prepared statement's generic plan estimates `= any($1)` at ten rows, so PostgreSQL judged it
 * dearer than the one-row custom plans and planned the statement again on every call (0.1-0.3 ms,
 * several times its execution); with `=` the generic plan is the custom one and is kept.
 */
export const idIn = (column: SQL, ids: readonly number[]): SQL => (ids.length === 1 ? sql`${column} = ${ids[0]}` : sql`${column} = any(${idArray(ids)})`);

/**
 * Runs independent statements side by side: on the pool, each on its own connection; inside a
 * transaction on PostgreSQL, written one behind the other on its (pipelined) connection and answered
 * in one round trip; inside a PGlite transaction, one after another. Each thunk must send its first
 * statement before its first await, so that they reach the server in the thunks' order (a statement
 * may rely on an earlier one's lock). If several fail, the error thrown is the first thunk's real
 * one, not the "transaction is aborted" its followers got.
 */
export async function allOf<T extends readonly (() => Promise<unknown>)[] | []>(
  db: Queryable,
  thunks: T,
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  if (!('rollback' in db)) return (await Promise.all(thunks.map((thunk) => thunk()))) as never;
  const client = (db as unknown as DrizzleInternals).session?.client;
  if (!(client instanceof pg.Client && client.pipeline)) {
    const results: unknown[] = [];
    for (const thunk of thunks) results.push(await thunk());
    return results as never;
  }
  const settled = await Promise.allSettled(corked(client as pg.PoolClient, () => thunks.map((thunk) => thunk())));
  const failed = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw (failed.find((r) => !inFailedTransaction(r.reason)) ?? failed[0]!).reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as never;
}

/** "current transaction is aborted": what every statement behind a failed one in a transaction gets (drizzle may wrap it). */
function inFailedTransaction(error: unknown): boolean {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 4; i++, e = e.cause as typeof e) if (e.code !== undefined) return e.code === '25P02';
  return false;
}
