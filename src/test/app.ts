import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, inject } from 'vitest';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase, queryRows, type Database } from '../db/client.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface TestUser {
  id: number;
  email: string;
  name: string;
  session: string;
  organizationId: number;
  headers: Record<string, string>;
}

export interface Requester {
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  delete(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  patch(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  put(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  request(method: Method, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface TestKit {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** Captured log lines (JSON strings) of this file's app. */
  logs: string[];
  /** A requester with the user's session (or with no credential for `null`). */
  as(user: TestUser | null): Requester;
  /** A new user with a new organization (the user its owner), registered through the API. */
  org(overrides?: { name?: string; email?: string; password?: string }): Promise<TestUser>;
  /** A new user added to `owner`'s organization with the given role (and switched to it). */
  member(owner: TestUser, role?: 'admin' | 'member'): Promise<TestUser>;
  /** Runs raw SQL for assertions and setup shortcuts. */
  sql<T extends object>(query: ReturnType<typeof sql>): Promise<T[]>;
}

export const PASSWORD = 'correct horse battery staple';

function requester(app: FastifyInstance, headers: Record<string, string>): Requester {
  const request = (method: Method, url: string, body?: unknown, extra: Record<string, string> = {}) =>
    app.inject({
      method,
      url,
      headers: { ...headers, ...extra },
      ...(body === undefined ? {} : typeof body === 'string' || Buffer.isBuffer(body) ? { payload: body } : { payload: body as object }),
    });
  return {
    request,
    get: (url, h) => request('GET', url, undefined, h),
    delete: (url, body) => request('DELETE', url, body),
    post: (url, body) => request('POST', url, body),
    patch: (url, body) => request('PATCH', url, body),
    put: (url, body) => request('PUT', url, body),
  };
}

/**
 * The migrated in-memory PGlite database of this worker process, shared by every file that runs in
 * it as all files share PostgreSQL's one schema: each test mints its own organizations and never
 * counts on an empty database. Loading the image for each file cost about 0.7 s of CPU, a minute of
 * every run. A file that asks for its own data directory gets a database of its own.
 */
let workerDatabase: Promise<Database> | null = null;
const sharedEmbedded = new WeakSet<Database>();

async function embeddedDatabase(config: Config, image: string): Promise<Database> {
  if (config.dataDir !== 'memory://') return openDatabase(config, { loadDataDir: new Blob([readFileSync(image)]) });
  workerDatabase ??= openDatabase(config, { loadDataDir: new Blob([readFileSync(image)]) }).then((database) => {
    sharedEmbedded.add(database);
    return database;
  });
  return workerDatabase;
}

/**
 * A database of the file's own, for a test that needs one without other files' rows (a restore into
 * an empty instance, a queue that any instance on the database would drain): on PostgreSQL the
 * database `<suite's>_<name>` beside the suite's, emptied here and migrated by the app; on PGlite an
 * in-memory one. Hand the answer to useTestApp as its overrides.
 */
export function ownDatabase(name: string): () => Partial<Config> {
  const url = process.env.DATABASE_URL;
  let own: string | null = null;
  if (url) {
    beforeAll(async () => {
      const target = new URL(url);
      target.pathname = `${target.pathname}_${name}`;
      own = target.toString();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create database ${target.pathname.slice(1)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err;
      });
      await admin.end();
      const client = new pg.Client({ connectionString: own });
      await client.connect();
      await client.query('drop schema if exists public cascade; drop schema if exists drizzle cascade; create schema public;');
      await client.end();
    });
  }
  return () => (own ? { databaseUrl: own, skipMigrations: false } : { dataDir: `memory://${name}` });
}

/**
 * One app per test file, on the worker's database (a migrated PGlite image, or the shared PostgreSQL schema);
 * each test mints its own organizations, so tests never share state.
 */
export function useTestApp(overrides: Partial<Config> | (() => Partial<Config>) = {}): TestKit {
  const logs: string[] = [];
  const kit = { logs } as TestKit;

  beforeAll(async () => {
    const tmpDir = inject('tmpDir');
    const image = inject('pgliteImage');
    const databaseUrl = process.env.DATABASE_URL || null;
    const config = loadConfig(
      { NODE_ENV: 'test' },
      {
        databaseUrl,
        // Behind a transaction pooler (.ci/pgbouncer): sessions go to the direct URL, statements unnamed.
        databaseDirectUrl: process.env.DATABASE_DIRECT_URL || null,
        databasePreparedStatements: process.env.DATABASE_PREPARED_STATEMENTS !== 'false',
        dataDir: 'memory://',
        databasePoolSize: 4,
        filesDir: path.join(tmpDir, `files-${randomUUID()}`),
        passwordHashCost: 10,
        authRateLimitPerMinute: 10_000,
        apiRateLimitPerMinute: 1_000_000,
        rateLimitNamespace: `test-${randomUUID()}:`,
        logLevel: 'info',
        skipMigrations: true,
        jobsEnabled: false,
        // A function when a setting is known only once other beforeAll hooks ran (a test server's port).
        ...(typeof overrides === 'function' ? overrides() : overrides),
      },
    );
    const database = image && !databaseUrl ? await embeddedDatabase(config, image) : await openDatabase(config);
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const app = await buildApp(config, { database, logStream });
    Object.assign(kit, { app, database, config });
  });

  afterAll(async () => {
    await kit.app?.close();
    if (kit.database && !sharedEmbedded.has(kit.database)) await kit.database.close();
  });

  kit.as = (user) => requester(kit.app, user ? user.headers : {});
  // A hand-made change no instance is told of: the read cache must forget, as after any such edit.
  kit.sql = <T extends object>(query: Parameters<typeof queryRows>[1]) => queryRows<T>(kit.database.db, query).finally(() => kit.app.readCache.forgetAll());

  kit.org = async (o = {}) => {
    const email = o.email ?? `u-${randomUUID()}@example.test`;
    const name = o.name ?? 'Test User';
    const res = await requester(kit.app, {}).post('/auth/register', { email, password: o.password ?? PASSWORD, name });
    if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
    const body = res.json() as { session: string; user: { id: number }; organization: { id: number } };
    return {
      id: body.user.id,
      email,
      name,
      session: body.session,
      organizationId: body.organization.id,
      headers: { 'service-session': body.session },
    };
  };

  kit.member = async (owner, role = 'member') => {
    const user = await kit.org({ name: `Member ${role}` });
    // Setup shortcut: organization membership by invitation is tested in its own module.
    await kit.sql(sql`insert into organization_members (organization_id, user_id, role) values (${owner.organizationId}, ${user.id}, ${role})`);
    await kit.sql(sql`update users set active_organization_id = ${owner.organizationId} where id = ${user.id}`);
    return { ...user, organizationId: owner.organizationId };
  };

  return kit;
}

/**
 * A digest of every row that belongs to the given organizations (every table with organization_id)
 * and of the given users, so a test can prove that a refused request changed nothing. Columns that
 * authentication itself touches (last use, activity) are left out.
 */
export async function fingerprint(kit: TestKit, organizationIds: number[], userIds: number[] = []): Promise<string> {
  const tables = await tenantTables(kit);
  const orgs = `{${organizationIds.join(',')}}`;
  const users = `{${userIds.join(',')}}`;
  // One statement for every table: the check runs around each refused request of every route.
  const digests = tables.map(
    (table) => sql`select ${table}::text as name, count(*)::int as n,
      md5(coalesce(string_agg((to_jsonb(t) - 'last_used_at' - 'last_activity_at')::text, ',' order by (to_jsonb(t) - 'last_used_at' - 'last_activity_at')::text), '')) as digest
      from ${sql.identifier(table)} t where organization_id = any(${orgs}::bigint[])`,
  );
  // The organization row itself has no organization_id column, yet a refused rename must not touch it.
  digests.push(sql`select 'organizations', count(*)::int, md5(coalesce(string_agg(to_jsonb(o)::text, ',' order by o.id), ''))
      from organizations o where id = any(${orgs}::bigint[])`);
  digests.push(sql`select 'users', count(*)::int, md5(coalesce(string_agg(to_jsonb(u)::text, ',' order by u.id), ''))
      from users u where id = any(${users}::bigint[])`);
  const rows = await kit.sql<{ name: string; n: number; digest: string }>(sql.join(digests, sql` union all `));
  // UNION ALL promises no order (PostgreSQL may run the branches in parallel): sort by table.
  return rows
    .map((r) => `${r.name}:${r.n}:${r.digest}`)
    .sort()
    .join('|');
}

const tableCache = new WeakMap<TestKit, string[]>();
async function tenantTables(kit: TestKit): Promise<string[]> {
  let tables = tableCache.get(kit);
  if (!tables) {
    // The report ledger, rollups and their queue are derived rows that a drain (a report's, or a
    // jobs-enabled app's in another file) brings up to date at any moment from earlier writes.
    const rows = await kit.sql<{ table_name: string }>(sql`
      select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'organization_id' and table_name <> 'user_activity_days'
        and table_name not like 'analytics\_%'
      order by table_name`);
    tables = rows.map((r) => r.table_name);
    tableCache.set(kit, tables);
  }
  return tables;
}

/** Asserts an RFC 9457 problem document with the given status (and code, if given). */
export function expectProblem(res: LightMyRequestResponse, status: number, code?: string): Record<string, unknown> {
  const body = res.json() as Record<string, unknown>;
  const problem = { status: res.statusCode, type: res.headers['content-type'], bodyStatus: body.status, code: body.code, hasRequestId: typeof body.requestId === 'string' };
  const expected = {
    status,
    type: 'application/problem+json; charset=utf-8',
    bodyStatus: status,
    code: code ?? body.code,
    hasRequestId: true,
  };
  if (JSON.stringify(problem) !== JSON.stringify(expected)) {
    throw new Error(`expected problem ${status}${code ? ` ${code}` : ''}, got ${res.statusCode}: ${res.body}`);
  }
  return body;
}
