import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../app.js';
import { PASSWORD, expectProblem, useTestApp } from '../test/app.js';
import { countStatements } from '../test/queries.js';
import { eventually, listen, WsClient } from '../modules/events/realtime.fixtures.js';
import { FREE_ACCOUNT_SIGN_INS, FREE_SIGN_INS } from './brute-force.js';

const t = useTestApp();
const onPostgres = Boolean(process.env.DATABASE_URL);
const LIMIT = 10;
const SYNC_GAP_MS = 150;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A second app on the same database, at a limit of 10 per minute (AUTH_RATE_LIMIT_PER_MINUTE), with
// a hash cost high enough that a skipped password check would show in the time.
let limited: FastifyInstance;
const limitedLogs: string[] = [];
beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => limitedLogs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  limited = await buildApp({ ...t.config, authRateLimitPerMinute: LIMIT, passwordHashCost: 14, rateLimitNamespace: `test-${randomUUID()}:` }, { database: t.database, logStream });
});
afterAll(async () => {
  await limited?.close();
});

let addresses = 0;
const nextAddress = () => `198.51.${(++addresses >> 8) & 255}.${addresses & 255}`;
const randomToken = (i: number) => `${i % 2 ? 'wmt_' : 'wms_'}${randomBytes(32).toString('base64url')}`;
const getUser = (app: FastifyInstance, remoteAddress: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/user', remoteAddress, headers });
const login = (app: FastifyInstance, remoteAddress: string, email: string, password: string) =>
  app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password } });
const isLookup = (text: string) => /from (sessions s|api_tokens t)\b/.test(text);

function expectRefused(res: LightMyRequestResponse) {
  expectProblem(res, 429, 'RATE_LIMITED');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

/** The answer without what differs between any two requests: the request id (and the ETag that follows), the clock. */
function answerOf(res: LightMyRequestResponse) {
  const { requestId, ...body } = res.json() as Record<string, unknown>;
  const { date, etag: _etag, 'x-request-id': id, 'x-ratelimit-reset': _reset, ...headers } = res.headers;
  expect([typeof requestId, typeof date, typeof id]).toEqual(['string', 'string', 'string']);
  return { status: res.statusCode, headers, body };
}

describe('requests without a valid credential, per client address', () => {
  it('answers 401 with WWW-Authenticate up to the limit, then 429 with Retry-After and no database statement', async () => {
    const from = nextAddress();
    for (let i = 0; i < LIMIT; i++) {
      const res = await getUser(limited, from);
      expectProblem(res, 401, 'UNAUTHENTICATED');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    // The first ten's counts reach the shared row first: what follows must send nothing at all.
    await sleep(SYNC_GAP_MS);
    const statements = await countStatements(t, async () => {
      for (let i = 0; i < 10; i++) expectRefused(await getUser(limited, from));
    });
    expect(statements).toBe(0);
    // Another address is not affected.
    expectProblem(await getUser(limited, nextAddress()), 401, 'UNAUTHENTICATED');
  });

  it('looks up only the random tokens within the limit, then answers 429 without a lookup', async () => {
    const from = nextAddress();
    const lookups = await countStatements(t, async () => {
      for (let i = 0; i < LIMIT; i++) {
        const res = await getUser(limited, from, { authorization: `Bearer ${randomToken(i)}` });
        expectProblem(res, 401, 'UNAUTHENTICATED');
        expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      }
    }, isLookup);
    expect(lookups).toBe(LIMIT);
    await sleep(SYNC_GAP_MS);
    const statements = await countStatements(t, async () => {
      for (let i = 0; i < 10; i++) expectRefused(await getUser(limited, from, { authorization: `Bearer ${randomToken(i)}` }));
      expectRefused(await getUser(limited, from, { 'service-session': randomToken(0) }));
    });
    expect(statements).toBe(0);
  });

  it('looks up no more than the limit of a burst sent at once', async () => {
    const from = nextAddress();
    let answers: LightMyRequestResponse[] = [];
    const lookups = await countStatements(t, async () => {
      answers = await Promise.all(Array.from({ length: 20 }, (_, i) => getUser(limited, from, { authorization: `Bearer ${randomToken(i)}` })));
    }, isLookup);
    expect(lookups).toBeLessThanOrEqual(LIMIT);
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20 - LIMIT);
    for (const res of answers) expectProblem(res, res.statusCode, res.statusCode === 401 ? 'UNAUTHENTICATED' : 'RATE_LIMITED');
  });

  it('still serves a session it knows from the read cache to a refused address', async () => {
    const from = nextAddress();
    const email = `bf-${randomUUID()}@example.test`;
    const session = (await limited.inject({ method: 'POST', url: '/auth/register', remoteAddress: nextAddress(), payload: { email, password: PASSWORD, name: 'Kept' } })).json().session as string;
    expect((await getUser(limited, from, { 'service-session': session })).json().email).toBe(email);
    for (let i = 0; i <= LIMIT; i++) await getUser(limited, from, { authorization: `Bearer ${randomToken(i)}` });
    expectRefused(await getUser(limited, from));
    const res = await getUser(limited, from, { 'service-session': session });
    expect(res.statusCode).toBe(200);
    expect(res.json().email).toBe(email);
  });
});

describe('the WebSocket credential', () => {
  it('is counted alike: once the address spent its budget, the connection is closed without a lookup', async () => {
    // The only connections this file makes from 127.0.0.1 with a credential.
    const host = await listen(limited);
    const open = async (i: number, reason: string) => {
      const client = await WsClient.open(host, { authorization: `Bearer ${randomToken(i)}` });
      await eventually(() => expect(client.closed).toEqual({ code: 4401, reason }));
    };
    for (let i = 0; i < LIMIT; i++) await open(i, 'unknown, expired or revoked credential');
    const lookups = await countStatements(t, () => open(0, 'too many failed credentials from this address, retry later'), isLookup);
    expect(lookups).toBe(0);
  });
});

describe('failed sign-ins', () => {
  it('makes an address wait after five failures, doubling the wait; the right password from another address still works', async () => {
    const user = await t.org();
    const attacker = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await login(t.app, attacker, user.email, `wrong password ${i}`);
      statuses.push(res.statusCode);
      if (res.statusCode === 401) expectProblem(res, 401, 'INVALID_CREDENTIALS');
      else {
        expectRefused(res);
        expect(res.headers['retry-after']).toBe('1');
      }
    }
    expect(statuses).toEqual([...Array(FREE_SIGN_INS).fill(401), ...Array(10 - FREE_SIGN_INS).fill(429)]);

    const owner = await login(t.app, nextAddress(), user.email, PASSWORD);
    expect(owner.statusCode).toBe(201);
    expect(owner.json().user.id).toBe(user.id);

    // From the failing address even the right password waits, but only for the wait announced.
    expectRefused(await login(t.app, attacker, user.email, PASSWORD));
    await sleep(1100);
    expectProblem(await login(t.app, attacker, user.email, 'wrong again'), 401, 'INVALID_CREDENTIALS');
    const longer = await login(t.app, attacker, user.email, PASSWORD);
    expectRefused(longer);
    expect(longer.headers['retry-after']).toBe('2');
    await sleep(2100);
    expect((await login(t.app, attacker, user.email, PASSWORD)).statusCode).toBe(201);
  });

  it('slows a guess spread over many addresses, never an address that has not failed', async () => {
    const user = await t.org();
    const spread = Array.from({ length: FREE_ACCOUNT_SIGN_INS / (FREE_SIGN_INS - 1) }, nextAddress);
    for (const from of spread) {
      for (let i = 0; i < FREE_SIGN_INS - 1; i++) expectProblem(await login(t.app, from, user.email, 'guess'), 401, 'INVALID_CREDENTIALS');
    }
    expectRefused(await login(t.app, spread[0]!, user.email, 'guess'));
    expect((await login(t.app, nextAddress(), user.email, PASSWORD)).statusCode).toBe(201);
  });

  it('answers an unknown email exactly as a wrong password, failures and waits alike, in a comparable time', async () => {
    const email = `bf-${randomUUID()}@example.test`;
    await limited.inject({ method: 'POST', url: '/auth/register', remoteAddress: nextAddress(), payload: { email, password: PASSWORD, name: 'Real' } });
    const [wrongFrom, unknownFrom, nobody] = [nextAddress(), nextAddress(), `nobody-${randomUUID()}@example.test`];
    for (let i = 0; i <= FREE_SIGN_INS; i++) {
      const wrong = await login(limited, wrongFrom, email, 'wrong password!');
      const unknown = await login(limited, unknownFrom, nobody, 'wrong password!');
      expect(answerOf(unknown)).toEqual(answerOf(wrong));
    }
    // Timed from fresh addresses, alternating, so that neither waits and both see the same load.
    const times = { wrong: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 5; i++) {
      for (const kind of ['wrong', 'unknown'] as const) {
        const started = performance.now();
        const res = await login(limited, nextAddress(), kind === 'wrong' ? email : `nobody-${randomUUID()}@example.test`, 'wrong password!');
        times[kind].push(performance.now() - started);
        expectProblem(res, 401, 'INVALID_CREDENTIALS');
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(times.unknown) / median(times.wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('stores no email in the counters, only keyed hashes', async () => {
    const email = `bf-plain-${randomUUID()}@example.test`;
    expectProblem(await login(t.app, nextAddress(), email, 'wrong password!'), 401, 'INVALID_CREDENTIALS');
    const key = t.app.authGuard.key('acct', email);
    expect(key).not.toContain(email);
    expect(key).not.toContain(email.split('@')[0]);
    if (!onPostgres) return;
    expect(await t.sql(sql`select key from rate_limits where key ilike ${`%${email.split('@')[0]}%`}`)).toEqual([]);
    expect(await t.sql(sql`select key from rate_limits where key = ${key}`)).toEqual([{ key }]);
  });
});

describe('accounting of denials', () => {
  it('counts every denial in /metrics and logs it with the address, never a secret', async () => {
    const from = nextAddress();
    const token = randomToken(0);
    const email = `bf-log-${randomUUID()}@example.test`;
    await getUser(limited, from);
    await getUser(limited, from, { authorization: `Bearer ${token}` });
    await login(limited, from, email, 'log-secret-password-123');
    for (let i = 0; i < LIMIT; i++) await getUser(limited, from);
    const metrics = (await limited.inject({ method: 'GET', url: '/metrics' })).body;
    for (const reason of ['missing_credential', 'invalid_credential', 'sign_in_failed', 'throttled']) {
      expect(Number(new RegExp(`workboard_auth_denials_total\\{reason="${reason}"\\} (\\d+)`).exec(metrics)?.[1])).toBeGreaterThan(0);
    }
    const denials = limitedLogs.filter((line) => line.includes('authentication denied') && line.includes(`"ip":"${from}"`));
    expect(denials.map((line) => JSON.parse(line).reason)).toEqual(
      expect.arrayContaining(['missing_credential', 'invalid_credential', 'sign_in_failed', 'throttled']),
    );
    // The sign-in limit per address (requests, before the body is read) is counted and logged too.
    const busy = nextAddress();
    for (let i = 0; i <= LIMIT; i++) await login(limited, busy, `bf-busy-${i}-${randomUUID()}@example.test`, 'wrong password!');
    expectRefused(await login(limited, busy, email, 'log-secret-password-123'));
    expect(limitedLogs.some((line) => line.includes(`"ip":"${busy}"`) && line.includes('"reason":"throttled"'))).toBe(true);
    const all = [...limitedLogs, ...t.logs].join('\n');
    for (const secret of [token, 'log-secret-password-123', email, PASSWORD]) expect(all).not.toContain(secret);
  });
});
