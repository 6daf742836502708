import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import { buildApp } from '../app.js';
import { expectProblem, useTestApp } from '../test/app.js';
import { sha256 } from './crypto.js';
import { runJob } from './jobs.js';
import { postgresHit, redisHit } from './rate-limit.js';
import { countRateLimitStatements } from '../test/queries.js';

const t = useTestApp();
const onPostgres = Boolean(process.env.DATABASE_URL);
const REDIS_URL = 'redis://127.0.0.1:6379';

/** Whether something listens on the local Redis port (the Redis tests skip otherwise). */
const redisUp = await new Promise<boolean>((resolve) => {
  const socket = connect(6379, '127.0.0.1');
  const done = (up: boolean) => {
    socket.destroy();
    resolve(up);
  };
  socket.setTimeout(500, () => done(false));
  socket.once('connect', () => done(true)).once('error', () => done(false));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SYNC_GAP_MS = 150;

/** A session made on `app` and requests that go to one instance or the other. */
async function sharedLimit(a: FastifyInstance, b: FastifyInstance, max: number) {
  const email = `rl-${randomUUID()}@example.test`;
  const res = await a.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'correct horse battery staple', name: 'Limited' } });
  expect(res.statusCode).toBe(201);
  const session = res.json().session as string;
  const get = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/user', headers: { 'service-session': session } });
  const answers = [];
  // Apart by more than the PostgreSQL counter's sync interval, as a caller's requests usually are:
  // each then reads the shared count (quicker ones are counted in memory and synced in a batch).
  for (let i = 0; i < max; i++) {
    answers.push(await get(i % 2 === 0 ? a : b));
    await sleep(SYNC_GAP_MS);
  }
  expect(answers.map((r) => r.statusCode)).toEqual(Array(max).fill(200));
  return { session, get };
}

describe('the PostgreSQL counter', () => {
  // The statement runs on the embedded database too, so it is tested everywhere.
  it('counts hits in a window and starts again once the window has run out', async () => {
    const hit = postgresHit(t.database.db);
    const key = `test:${randomUUID()}`;
    expect(await hit(key, 60_000)).toMatchObject({ current: 1 });
    const second = await hit(key, 60_000);
    expect(second.current).toBe(2);
    expect(second.ttl).toBeGreaterThan(50_000);
    expect(second.ttl).toBeLessThanOrEqual(60_000);
    await sleep(SYNC_GAP_MS);
    expect((await hit(key, 60_000)).current).toBe(3);
    const short = `test:${randomUUID()}`;
    await hit(short, 50);
    await hit(short, 50);
    await sleep(80);
    expect(await hit(short, 50)).toMatchObject({ current: 1 });
  });
});

describe('the PostgreSQL counter under load', () => {
  it('counts quick hits in memory and adds them to the shared row in one statement per interval', async () => {
    const hit = postgresHit(t.database.db, 100);
    const key = `test:${randomUUID()}`;
    let elapsed = 0;
    const statements = await countRateLimitStatements(t, async () => {
      const started = Date.now();
      for (let i = 1; i <= 50; i++) expect((await hit(key, 60_000)).current).toBe(i);
      elapsed = Date.now() - started;
      await sleep(SYNC_GAP_MS);
      // Only this key's statements: the app's own limiter may sync earlier tests' hits meanwhile.
    }, key);
    // The first hit, then at most one statement per 100 ms (two on a fast machine: the first hit
    // and one sync of the 49 after it), and the final sync.
    expect(statements).toBeGreaterThanOrEqual(2);
    expect(statements).toBeLessThanOrEqual(2 + Math.ceil(elapsed / 100));
    expect(await t.sql(sql`select count from rate_limits where key = ${key}`)).toEqual([{ count: 50 }]);
  });
});

describe('the PostgreSQL counter as the app closes', () => {
  it('sends the last interval\'s hits on close, and counts later ones in memory without a timer', async () => {
    const hit = postgresHit(t.database.db, 60_000);
    const key = `test:${randomUUID()}`;
    for (let i = 1; i <= 3; i++) expect((await hit(key, 60_000)).current).toBe(i);
    expect(await t.sql(sql`select count from rate_limits where key = ${key}`)).toEqual([{ count: 1 }]);
    await hit.close();
    expect(await t.sql(sql`select count from rate_limits where key = ${key}`)).toEqual([{ count: 3 }]);
    expect((await hit(key, 60_000)).current).toBe(4);
    await sleep(SYNC_GAP_MS);
    expect(await t.sql(sql`select count from rate_limits where key = ${key}`)).toEqual([{ count: 3 }]);
  });
});

describe('the PostgreSQL counter with overlapping round trips', () => {
  it("counts each hit once when a caller's upsert goes out while the interval's sync is still out", async () => {
    const hit = postgresHit(t.database.db, 20);
    const key = `test:${randomUUID()}`;
    await hit(key, 60_000);
    for (let i = 0; i < 4; i++) await hit(key, 60_000);
    let late: Promise<unknown> = Promise.resolve();
    // The row held by another transaction (on PGlite: its one connection held): the interval's sync
    // of those four waits, and a hit past the interval sends its upsert meanwhile.
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from rate_limits where key = ${key} for update`);
      await sleep(60);
      late = hit(key, 60_000);
      await sleep(20);
    });
    await late;
    await sleep(SYNC_GAP_MS);
    expect(await t.sql(sql`select count from rate_limits where key = ${key}`)).toEqual([{ count: 6 }]);
    expect((await hit(key, 60_000)).current).toBe(7);
  });
});

describe.skipIf(!onPostgres)('rate limits shared through PostgreSQL', () => {
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('two instances on one database count one limit', async () => {
    // Each instance with its own pool, as separate processes would be.
    for (let i = 0; i < 2; i++) apps.push(await buildApp({ ...t.config, apiRateLimitPerMinute: 4, logLevel: 'silent' }));
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    const { get } = await sharedLimit(a, b, 4);
    const limited = await get(a);
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectProblem(await get(b), 429, 'RATE_LIMITED');
  });

  it('purges counters whose window has run out', async () => {
    const key = `test:${randomUUID()}`;
    await t.sql(sql`insert into rate_limits (key, count, reset_at) values (${key}, 3, now() - interval '1 second')`);
    await runJob(apps[0] ?? t.app, 'rate-limits.purge', { force: true });
    expect(await t.sql(sql`select 1 from rate_limits where key = ${key}`)).toEqual([]);
  });
});

describe.skipIf(!redisUp)('rate limits shared through Redis', () => {
  const prefix = `workboard-test-${randomUUID()}:`;
  const redis = redisUp ? new Redis(REDIS_URL, { lazyConnect: true }) : null;
  const apps: FastifyInstance[] = [];
  const config = () => ({ ...t.config, redisUrl: REDIS_URL, redisKeyPrefix: prefix, apiRateLimitPerMinute: 4, logLevel: 'silent' });
  afterAll(async () => {
    for (const app of apps) await app.close();
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('two instances on one Redis count one limit', async () => {
    for (let i = 0; i < 2; i++) apps.push(await buildApp(config(), { database: t.database }));
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    const { get } = await sharedLimit(a, b, 4);
    expectProblem(await get(b), 429, 'RATE_LIMITED');
    expectProblem(await get(a), 429, 'RATE_LIMITED');
    expect((await redis!.keys(`${prefix}rl:${t.config.rateLimitNamespace}c:*`)).length).toBeGreaterThan(0);
  });

  it('counts a window and starts again once it has run out', async () => {
    const hit = redisHit(redis!, prefix);
    const key = `test:${randomUUID()}`;
    expect(await hit(key, 50)).toMatchObject({ current: 1 });
    expect(await hit(key, 50)).toMatchObject({ current: 2 });
    await sleep(80);
    expect(await hit(key, 50)).toMatchObject({ current: 1 });
  });

  it('lets requests through when the counter fails, rather than failing them', async () => {
    if (apps.length === 0) apps.push(await buildApp(config(), { database: t.database }));
    const app = apps[0]!;
    const owner = await t.org();
    // A key of the wrong type makes every count of this credential fail on the server.
    await redis!.hset(`${prefix}rl:${t.config.rateLimitNamespace}c:${sha256(owner.session).slice(0, 32)}`, 'x', '1');
    for (let i = 0; i < 6; i++) {
      expect((await app.inject({ method: 'GET', url: '/user', headers: owner.headers })).statusCode).toBe(200);
    }
  });

  it('refuses to start with a Redis it cannot reach', async () => {
    await expect(buildApp({ ...config(), redisUrl: 'redis://127.0.0.1:1' }, { database: t.database })).rejects.toThrow(/REDIS_URL/);
  });
});
