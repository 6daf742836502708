import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Config } from '../config.js';
import type { Database, Db } from './client.js';
import { DatabaseUnavailableError } from './faults.js';
import { runMigrations } from './migrate.js';
import { Outage } from './outage.js';
import { pipelineTransactions, resetBoundary } from './pipelined-transactions.js';
import { timeQueries, type QueryTiming } from './timing.js';

/** Pools and connections on which statements go unnamed (DATABASE_PREPARED_STATEMENTS=false: a transaction pooler). */
export const unnamed = new WeakSet<object>();

type Callback = (err: Error | undefined, client?: pg.PoolClient, done?: () => void) => void;

interface Limits {
  /** The server's statement_timeout; the client gives up half a second later (a silent network). */
  queryMs: number;
  max: number;
}

/**
 * Settings every connection starts with, where a session is ours to set (not behind a transaction
 * pooler, which refuses startup options and would hand the session to others). JIT off: on a
 * mis-estimated report PostgreSQL spent 1.8 s compiling a 200 ms query (bench WA7); the statements
 * of a request-serving service are too short for compilation ever to pay back.
 */
function sessionOptions(config: Config, queryMs: number): string {
  // Long work may pause inside its transaction (an archive streaming to storage) as long as a statement may run.
  const idleMs = Math.max(config.databaseIdleInTransactionTimeoutMs, queryMs === config.databaseQueryTimeoutMs ? 0 : queryMs);
  return `-c jit=off -c statement_timeout=${queryMs} -c idle_in_transaction_session_timeout=${idleMs}`;
}

function poolOf(config: Config, limits: Limits, connectionString = config.databaseUrl!): pg.Pool {
  const sessions = config.databasePreparedStatements;
  return new pg.Pool({
    connectionString,
    max: limits.max,
    // Pipelined: a transaction's BEGIN and COMMIT travel with its statements (db/pipelined-transactions.ts).
    pipeline: true,
    connectionTimeoutMillis: config.databaseConnectTimeoutMs,
    query_timeout: limits.queryMs + 500,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(sessions ? { options: sessionOptions(config, limits.queryMs) } : {}),
  });
}

/** One connection that answers `select 1`, opened and closed: the outage's probe. */
export async function reach(connectionString: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Wires a pool to the outage tracker: every connection's errors are heard (node-postgres emits
 * 'error' on a connection that breaks between statements, and an unheard one ends the process),
 * every failed connect and statement is reported, and during an outage a connect fails at once.
 */
function guard(pool: pg.Pool, outage: Outage, queries: QueryTiming, named: boolean): void {
  pool.on('error', (err) => outage.report(err));
  pool.on('connect', (client) => {
    client.on('error', (err) => outage.report(err));
    timeQueries(client, queries);
    pipelineTransactions(client);
    if (!named) unnamed.add(client);
  });
  pool.on('release', (_err: Error | undefined, client: pg.PoolClient) => resetBoundary(client));
  if (!named) unnamed.add(pool);
  const connect = pool.connect.bind(pool) as (cb?: Callback) => Promise<pg.PoolClient> | undefined;
  (pool as unknown as { connect: (cb?: Callback) => unknown }).connect = (callback?: Callback) => {
    if (outage.down) {
      const refused = new DatabaseUnavailableError(outage.cause ?? 'unreachable');
      if (!callback) return Promise.reject(refused);
      process.nextTick(() => callback(refused));
      return undefined;
    }
    if (!callback) {
      return connect()!.catch((err: unknown) => {
        outage.report(err);
        throw err;
      });
    }
    return connect((err, client, done) => {
      if (err) outage.report(err);
      callback(err, client, done);
    });
  };
}

/** The PostgreSQL side of openDatabase: the request pool, the long-work pool and their outage tracker. */
export function openPool(config: Config, queries: QueryTiming): Database {
  const url = config.databaseUrl!;
  const named = config.databasePreparedStatements;
  const outage = new Outage(() => reach(url, Math.min(config.databaseConnectTimeoutMs, 2000)));
  queries.failed = (error) => outage.report(error);
  const pool = poolOf(config, { queryMs: config.databaseQueryTimeoutMs, max: config.databasePoolSize });
  guard(pool, outage, queries, named);
  // A pool connects on first use: most instances never export or import, and never open this one.
  const jobPool = poolOf(config, { queryMs: config.databaseJobQueryTimeoutMs, max: 2 });
  guard(jobPool, outage, { inFlight: 0, failed: queries.failed }, named);
  const database: Database = {
    kind: 'postgres',
    db: drizzle(pool) as unknown as Db,
    jobDb: drizzle(jobPool) as unknown as Db,
    ping: async () => void (await pool.query('select 1')),
    close: async () => {
      outage.close();
      await Promise.all([pool.end(), jobPool.end()]);
    },
    queries,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    outage,
  };
  return database;
}

/**
 * Applies migrations on a connection that holds its session (DATABASE_DIRECT_URL when a pooler sits
 * in front) and waits as long as long background work may: an index built on a large table can
 * take minutes, and an upgrade must not fail halfway on a request-sized timeout.
 */
export async function migrateDirect(config: Config, progress?: (line: string) => void): Promise<void> {
  // The direct URL is a session of our own; without one, migrations go where DATABASE_URL says.
  const pool = poolOf(
    { ...config, databasePreparedStatements: config.databaseDirectUrl !== null || config.databasePreparedStatements },
    { queryMs: config.databaseJobQueryTimeoutMs, max: 1 },
    config.databaseDirectUrl ?? config.databaseUrl!,
  );
  pool.on('error', () => {});
  try {
    await runMigrations({ kind: 'postgres', db: drizzle(pool) }, progress);
  } finally {
    await pool.end();
  }
}
