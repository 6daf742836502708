import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from './fault-proxy.js';
import { call, EventStream, Load, signUp, type Answer, type Session } from './fault-load.js';
import { freePort } from './net.js';
import { OwnPostgres } from './own-postgres.js';
import { exited, startServerProcess } from './server-process.js';

/**
 * The service process on a PostgreSQL of the test's own, through a proxy that stalls or cuts
 * connections, under writers whose acknowledged writes are kept in a ledger. Run once (in the
 * embedded database's pass: the server here is its own, not DATABASE_URL's).
 */
const QUERY_TIMEOUT_MS = 4000;
const children: ChildProcess[] = [];
const runs = !process.env.DATABASE_URL && OwnPostgres.binDir() !== null;

describe.runIf(runs).sequential('the service through database faults', () => {
  let db: OwnPostgres;
  let proxy: FaultProxy;
  let server: ChildProcess;
  let s: Session;
  const output = { text: '' };

  const env = (proxyPort: number) => ({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxyPort}/postgres`,
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    DATABASE_CONNECT_TIMEOUT_MS: '3000',
    DATABASE_POOL_SIZE: '4',
  });

  beforeAll(async () => {
    db = await OwnPostgres.create(await freePort());
    proxy = new FaultProxy(db.port);
    await proxy.listen();
    const port = await freePort();
    server = await startServerProcess(port, env(proxy.port), children, '/ready', output);
    s = await signUp(`http://127.0.0.1:${port}`, 'faults');
  }, 120_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await proxy?.close();
    await db?.destroy();
  });

  /** Every acknowledged task is in the database, and the stream got every event once, in order. */
  async function nothingLost(load: Load, stream: EventStream, firstEventId: number): Promise<void> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const found = await client.query<{ n: number }>('select count(*)::int as n from tasks where id = any($1::bigint[])', [load.acknowledged]);
      expect(found.rows[0]!.n, 'acknowledged tasks in the database').toBe(load.acknowledged.length);
      const head = await client.query<{ id: number }>('select coalesce(max(id), 0)::int as id from events where organization_id = $1', [s.organizationId]);
      const last = head.rows[0]!.id;
      for (const deadline = Date.now() + 10_000; stream.ids.at(-1) !== last && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
      const expected = Array.from({ length: last - firstEventId }, (_, i) => firstEventId + 1 + i);
      expect(stream.ids, 'every event once, in order, no gap').toEqual(expected);
    } finally {
      await client.end();
    }
  }

  const headEventId = async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ id: number }>('select coalesce(max(id), 0)::int as id from events where organization_id = $1', [s.organizationId]);
    await client.end();
    return rows[0]!.id;
  };

  /** Starts writers and an event stream; answers them once writes flow. */
  async function underLoad(): Promise<{ load: Load; stream: EventStream; firstEventId: number }> {
    const stream = new EventStream();
    const firstEventId = await headEventId();
    await stream.open(s);
    const load = new Load(s).start();
    await load.acknowledgedMore(10);
    return { load, stream, firstEventId };
  }

  const failures = (answers: Answer[]) => answers.filter((a) => a.status !== 201);

  it('survives a hard kill of PostgreSQL: 503 quickly during it, serving again within 5 s of its return, nothing lost', async () => {
    const { load, stream, firstEventId } = await underLoad();
    const killedAt = Date.now();
    await db.kill();
    await new Promise((r) => setTimeout(r, 3000));
    const during = load.since(killedAt + 500);
    expect(during.length, 'writes were tried during the outage').toBeGreaterThan(0);
    for (const a of during) expect(a, 'a write during the outage').toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(Math.max(...load.since(killedAt).map((a) => a.ms)), 'slowest answer during the outage, ms').toBeLessThan(5000);
    expect(during.every((a) => Number(a.retryAfter) > 0)).toBe(true);
    const ready = await call(s.base, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(server.exitCode, 'the service process is up').toBeNull();

    await db.start();
    const back = Date.now();
    const firstWrite = await load.acknowledgedMore(5);
    expect(firstWrite - back, 'ms from the database back to the first acknowledged write').toBeLessThan(5000);
    await load.stop();
    expect(failures(load.answers).filter((a) => a.status === 'dropped'), 'connections dropped without an answer').toEqual([]);
    await nothingLost(load, stream, firstEventId);
    await stream.close();
  }, 120_000);

  it('survives a reset of every database connection: answers 503 or succeeds, and recovers', async () => {
    const { load, stream, firstEventId } = await underLoad();
    const cutAt = Date.now();
    expect(proxy.resetAll(), 'connections cut').toBeGreaterThan(0);
    const firstWrite = await load.acknowledgedMore(10);
    expect(firstWrite - cutAt, 'ms to the first acknowledged write after the reset').toBeLessThan(5000);
    await load.stop();
    for (const a of failures(load.answers)) expect(a).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(server.exitCode).toBeNull();
    await nothingLost(load, stream, firstEventId);
    await stream.close();
    const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/workboard_db_errors_total\{kind="connection_lost"\} [1-9]/);
    expect(metrics).toMatch(/workboard_db_outage 0/);
  }, 120_000);

  it('bounds every wait during a 20 s network stall, answers /ready within 2 s, and recovers after it', async () => {
    const { load, stream, firstEventId } = await underLoad();
    const stalledAt = Date.now();
    proxy.stall();
    const readies: number[] = [];
    while (Date.now() - stalledAt < 20_000) {
      const t = Date.now();
      const ready = await call(s.base, 'GET', '/ready');
      expect(ready.status).toBe(503);
      readies.push(Date.now() - t);
      await new Promise((r) => setTimeout(r, 1000));
    }
    proxy.resume();
    const resumedAt = Date.now();
    expect(Math.max(...readies), 'slowest /ready during the stall, ms').toBeLessThan(2000);
    const firstWrite = await load.acknowledgedMore(5);
    expect(firstWrite - resumedAt, 'ms to the first acknowledged write after the stall').toBeLessThan(5000);
    await load.stop();
    const during = load.since(stalledAt, resumedAt);
    expect(Math.max(...during.map((a) => a.ms)), 'slowest answer during the stall, ms').toBeLessThanOrEqual(QUERY_TIMEOUT_MS + 1000);
    for (const a of failures(during)) expect(a).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    await nothingLost(load, stream, firstEventId);
    await stream.close();
  }, 120_000);

  it('waits for a database that is down at start: /health 200 and /ready 503, then serves', async () => {
    await db.stop();
    const port = await freePort();
    const waiting = { text: '' };
    const second = await startServerProcess(port, { ...env(proxy.port), LOG_LEVEL: 'info' }, children, '/health', waiting);
    const base = `http://127.0.0.1:${port}`;
    expect((await call(base, 'GET', '/health')).status).toBe(200);
    const ready = await call(base, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable' });
    expect((await call(base, 'GET', '/organization', undefined, s.session)).body).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(waiting.text).toMatch(`waiting for the database at 127.0.0.1:${proxy.port} (attempt 1)`);
    expect(waiting.text).not.toMatch(/\n\s+at /);
    await db.start();
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if ((await call(base, 'GET', '/ready').catch(() => ({ status: 0 }))).status === 200) break;
    }
    const made = await call(base, 'POST', '/tasks', { name: 'after the wait', stageId: s.stageId }, s.session);
    expect(made.status).toBe(201);
    second.kill('SIGTERM');
    expect(await exited(second)).toBe(0);
    expect(server.exitCode, 'the first instance lived through it all').toBeNull();
    expect(output.text, 'a stack trace in the first instance\'s log').not.toMatch(/\n\s+at /);
  }, 120_000);
});
