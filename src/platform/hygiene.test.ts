import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { PASSWORD, expectProblem, useTestApp } from '../test/app.js';
import { factories } from '../test/factories.js';

const t = useTestApp({ corsOrigins: ['https://board.example'], trustProxy: true, authRateLimitPerMinute: 5 });
const f = factories(t);
// Registrations count against the file's low auth limit (5 a minute per address): the tests below share one account.
let shared: ReturnType<typeof t.org> | undefined;
const sharedOwner = () => (shared ??= t.org());

describe('HTTP hygiene', () => {
  it('sends API-appropriate security headers', async () => {
    const res = await t.as(null).get('/health');
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-site',
    });
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers a CORS preflight for an allowed origin, and gives an unknown origin no allow-origin', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/spaces',
      headers: { origin: 'https://board.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,service-session' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://board.example');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('service-session');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('PATCH');
    const owner = await t.org();
    const read = await t.as(owner).get('/user', { origin: 'https://board.example' });
    expect(read.headers['access-control-allow-origin']).toBe('https://board.example');
    expect(String(read.headers['access-control-expose-headers'])).toContain('x-total-count');
    const stranger = await t.as(owner).get('/user', { origin: 'https://evil.example' });
    expect(stranger.statusCode).toBe(200);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a browser send If-Match and read the rate-limit headers and Retry-After', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/tasks/1/name',
      headers: { origin: 'https://board.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'if-match,content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers']).split(/,\s*/)).toContain('if-match');
    const owner = await sharedOwner();
    const read = await t.as(owner).get('/user', { origin: 'https://board.example' });
    const exposed = String(read.headers['access-control-expose-headers']).split(/,\s*/);
    const limits = Object.keys(read.headers).filter((h) => /ratelimit/.test(h));
    expect(limits.length).toBeGreaterThan(0);
    expect(exposed).toEqual(expect.arrayContaining([...limits, 'retry-after']));
  });

  it('marks authenticated JSON answers private and to be revalidated, and leaves anonymous ones alone', async () => {
    const owner = await sharedOwner();
    const mine = await t.as(owner).get('/user');
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-cache');
    expect(mine.headers.etag).toBeDefined();
    const missing = await t.as(owner).get('/tasks/999999999');
    expect(missing.headers['cache-control']).toBe('private, no-cache');
    const health = await t.as(null).get('/health');
    expect(health.statusCode).toBe(200);
    expect(health.headers['cache-control']).toBeUndefined();
  });

  it('compresses large answers (the OpenAPI document) and leaves small ones alone', async () => {
    const plain = await t.as(null).get('/openapi.json');
    const zipped = await t.as(null).get('/openapi.json', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    expect(JSON.parse(gunzipSync(zipped.rawPayload).toString('utf8'))).toEqual(plain.json());
    const small = await t.as(null).get('/health', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('tags GET answers and answers 304 to an unchanged If-None-Match, 200 once it changed', async () => {
    const owner = await sharedOwner();
    const first = await t.as(owner).get('/user');
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^W\/"/);
    const again = await t.as(owner).get('/user', { 'if-none-match': tag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await t.as(owner).patch('/user/name', { name: 'Renamed' })).statusCode).toBe(200);
    const changed = await t.as(owner).get('/user', { 'if-none-match': tag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ name: 'Renamed' });
  });

  it('takes the client address from X-Forwarded-For behind a trusted proxy, so each client has its own rate limit', async () => {
    // Another address per attempt's account too: the per-account limit is not what is tested here.
    const login = (ip: string) =>
      t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'x-forwarded-for': ip }, payload: { email: `nobody-${Math.random()}@example.test`, password: 'wrong password' } });
    for (let i = 0; i < 5; i++) expect((await login('203.0.113.7')).statusCode).toBe(401);
    expectProblem(await login('203.0.113.7'), 429, 'RATE_LIMITED');
    expect((await login('198.51.100.9')).statusCode).toBe(401);
  });
});

describe('without CORS_ORIGINS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ ...t.config, corsOrigins: [], logLevel: 'silent' }, { database: t.database });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses a preflight as a problem document, before asking for a credential, and sends no CORS headers', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/spaces', headers: { origin: 'https://board.example', 'access-control-request-method': 'POST' } });
    expectProblem(res, 403, 'FORBIDDEN');
    expect(res.json()).toMatchObject({ detail: expect.stringContaining('CORS_ORIGINS') });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const owner = await sharedOwner();
    const read = await app.inject({ method: 'GET', url: '/user', headers: { ...owner.headers, origin: 'https://board.example' } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('SIGNUP_MODE', () => {
  let closed: FastifyInstance;
  let inviteOnly: FastifyInstance;
  beforeAll(async () => {
    closed = await buildApp({ ...t.config, signupMode: 'closed', logLevel: 'silent' }, { database: t.database });
    inviteOnly = await buildApp({ ...t.config, signupMode: 'invite-only', logLevel: 'silent' }, { database: t.database });
  });
  afterAll(async () => {
    await closed?.close();
    await inviteOnly?.close();
  });
  const register = (app: FastifyInstance, extra: Record<string, unknown> = {}) => {
    const email = `signup-${Math.random().toString(36).slice(2)}@example.test`;
    // Each from its own address (the proxy is trusted): the per-IP sign-up limit is not what is tested.
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    return { email, res: app.inject({ method: 'POST', url: '/auth/register', headers: { 'x-forwarded-for': ip }, payload: { email, password: PASSWORD, name: 'New', ...extra } }) };
  };
  const accounts = async (email: string) => (await t.sql<{ n: number }>(sql`select count(*)::int as n from users where email = ${email}`))[0]!.n;

  it('closed: nobody registers, invited or not', async () => {
    const { email, res } = register(closed);
    expectProblem(await res, 403, 'SIGNUP_CLOSED');
    expect(await accounts(email)).toBe(0);
  });

  it('invite-only: registers with an invite link only; open (the default) registers anyone', async () => {
    const plain = register(inviteOnly);
    expectProblem(await plain.res, 403, 'SIGNUP_CLOSED');
    expect(await accounts(plain.email)).toBe(0);
    const owner = await t.org();
    const space = await f.space(owner, 'Crew');
    const link = (await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'member' })).json() as { token: string };
    const invited = register(inviteOnly, { inviteToken: link.token });
    expect((await invited.res).statusCode).toBe(201);
    expect(await accounts(invited.email)).toBe(1);
    const open = register(t.app);
    expect((await open.res).statusCode).toBe(201);
  });
});
