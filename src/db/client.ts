import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Config } from '../config.js';
import * as schema from './schema/index.js';
import { runMigrations } from './migrate.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Told when the pool loses an idle connection (the app logs it); the pool replaces the connection. */
  onError?: (err: Error) => void;
}

// int8 (counts, bigint ids in raw SQL) as JS numbers: ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export interface OpenOptions {
  /** A migrated data-directory image (tests load one per file instead of migrating). */
  loadDataDir?: Blob;
}

export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  let database: Database;
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.databasePoolSize });
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', (err) => database.onError?.(err));
    database = {
      kind: 'postgres',
      db,
      ping: async () => void (await pool.query('select 1')),
      close: () => pool.end(),
    };
  } else {
    const dataDir = config.dataDir;
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    const client = await PGlite.create(dataDir.startsWith('memory://') ? undefined : dataDir, {
      loadDataDir: options.loadDataDir,
    });
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    database = {
      kind: 'pglite',
      db,
      ping: async () => void (await client.query('select 1')),
      close: () => client.close(),
    };
  }
  if (!config.skipMigrations) await runMigrations(database);
  return database;
}

export { sql };

// What drizzle's node-postgres driver leaves as text (timestamps, dates, intervals and their
// arrays), so rows read either way look the same to the presenters.
const AS_TEXT = new Set([1082, 1114, 1184, 1186, 1115, 1182, 1185, 1187, 1231]);
const TEXT_TYPES = {
  getTypeParser: ((id: number, format?: 'text' | 'binary') =>
    AS_TEXT.has(id) ? (value: string) => value : pg.types.getTypeParser(id, format)) as typeof pg.types.getTypeParser,
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
   * Hot statements with a fixed text: run as a named prepared statement on PostgreSQL (parsed and
   * planned once per pooled connection). Never for text that varies with the input.
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
    const name = options.prepare ? statementName(options.prepare, text) : undefined;
    const result = await client.query<T>({ name, text, values: params, types: TEXT_TYPES });
    return result.rows;
  }
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** Ids as ONE bigint[] parameter: the statement text stays the same whatever the count. */
export const idArray = (ids: Iterable<number>) => sql`${`{${[...ids].join(',')}}`}::bigint[]`;

/**
 * Runs independent reads side by side on the pool, but one after another inside a transaction: a
 * transaction is one connection, and overlapping queries on one pg client are deprecated.
 */
export async function allOf<T extends readonly (() => Promise<unknown>)[]>(
  db: Queryable,
  thunks: T,
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  if ('rollback' in db) {
    const results: unknown[] = [];
    for (const thunk of thunks) results.push(await thunk());
    return results as never;
  }
  return (await Promise.all(thunks.map((thunk) => thunk()))) as never;
}
