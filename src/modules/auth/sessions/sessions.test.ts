import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import { PASSWORD, expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { sha256 } from '../../../platform/crypto.js';
import { eventually } from '../../events/realtime.fixtures.js';

const t = useTestApp();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const onPostgres = Boolean(process.env.DATABASE_URL);

/** Another sign-in of the same user, from another client. */
async function signIn(user: TestUser, userAgent = 'Second Browser/1.0'): Promise<TestUser> {
  const res = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'user-agent': userAgent }, payload: { email: user.email, password: PASSWORD } });
  expect(res.statusCode).toBe(201);
  const session = res.json().session as string;
  return { ...user, session, headers: { 'service-session': session } };
}

type Session = { id: number; createdAt: string; lastUsedAt: string; expiresAt: string; ip: string | null; userAgent: string | null; current: boolean };
const list = async (user: TestUser) => (await t.as(user).get('/user/sessions')).json() as Session[];

describe('GET /user/sessions', () => {
  it('lists own live sessions with times, address and client, the current one marked', async () => {
    const user = await t.org();
    const second = await signIn(user, 'Firefox/140.0');
    await t.as(second).post('/auth/logout');
    await signIn(user, 'Chrome/150.0');
    await t.org(); // someone else's sessions never show
    const res = await t.as(user).get('/user/sessions');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    const sessions = res.json() as Session[];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastUsedAt', 'userAgent']);
      for (const d of [s.createdAt, s.lastUsedAt, s.expiresAt]) expect(d).toMatch(ISO_MS);
      expect(s.ip).toBe('127.0.0.1');
    }
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions.find((s) => !s.current)!.userAgent).toBe('Chrome/150.0');
  });

  it('pages: limit and offset, the total and the next page in the headers', async () => {
    const user = await t.org();
    await signIn(user);
    await signIn(user);
    const first = await t.as(user).get('/user/sessions?limit=2');
    expect([first.statusCode, first.headers['x-total-count'], first.json().length]).toEqual([200, '3', 2]);
    expect(first.headers.link).toBe('</user/sessions?limit=2&offset=2>; rel="next"');
    expect((await t.as(user).get('/user/sessions?limit=2&offset=2')).json()).toHaveLength(1);
  });

  it('refuses a bad query with 400', async () => {
    const user = await t.org();
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'limit=x']) expectProblem(await t.as(user).get(`/user/sessions?${q}`), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'GET /user/sessions', { method: 'GET', foreignId: false, setup: async (kit) => ({ url: '/user/sessions', owner: await kit.org() }) });
});

describe('DELETE /user/sessions/{id}', () => {
  it('revokes one session: it answers 401 at once, even though its credential was cached', async () => {
    const user = await t.org();
    const second = await signIn(user);
    expect((await t.as(second).get('/user')).statusCode).toBe(200);
    expect(t.app.readCache.credential(sha256(second.session))).not.toBeNull();
    const other = (await list(user)).find((s) => !s.current)!;
    const res = await t.as(user).delete(`/user/sessions/${other.id}`);
    expect([res.statusCode, res.body]).toEqual([204, '']);
    expectProblem(await t.as(second).get('/user'), 401, 'UNAUTHENTICATED');
    expect((await list(user)).map((s) => s.id)).not.toContain(other.id);
    expect((await t.as(user).get('/user')).statusCode).toBe(200);
    // Revoked already: gone, like one that never existed.
    expectProblem(await t.as(user).delete(`/user/sessions/${other.id}`), 404, 'NOT_FOUND');
  });

  it('revoking the current session signs out', async () => {
    const user = await t.org();
    const current = (await list(user)).find((s) => s.current)!;
    expect((await t.as(user).delete(`/user/sessions/${current.id}`)).statusCode).toBe(204);
    expectProblem(await t.as(user).get('/user/sessions'), 401, 'UNAUTHENTICATED');
  });

  it("answers 404 for another user's session of the same organization, which keeps working", async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const [row] = await t.sql<{ id: number }>(sql`select id from sessions where user_id = ${member.id} limit 1`);
    expectProblem(await t.as(owner).delete(`/user/sessions/${row!.id}`), 404, 'NOT_FOUND');
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
  });

  it('expired sessions answer 401 and are not listed; use slides the expiry', async () => {
    const user = await t.org();
    await t.sql(sql`update sessions set last_used_at = now() - interval '2 minutes', expires_at = now() + interval '1 day' where user_id = ${user.id}`);
    expect((await t.as(user).get('/user')).statusCode).toBe(200);
    const [slid] = await t.sql<{ days: number }>(sql`select extract(day from expires_at - now())::int as days from sessions where user_id = ${user.id}`);
    expect(slid!.days).toBeGreaterThanOrEqual(29);
    const second = await signIn(user);
    await t.sql(sql`update sessions set expires_at = now() - interval '1 second' where token_hash = ${sha256(user.session)}`);
    expectProblem(await t.as(user).get('/user'), 401, 'UNAUTHENTICATED');
    expect((await list(second)).map((s) => s.current)).toEqual([true]);
  });

  commonCases(t, 'DELETE /user/sessions/{id}', {
    method: 'DELETE',
    setup: async (kit) => {
      const owner = await kit.org();
      const [row] = await kit.sql<{ id: number }>(sql`select id from sessions where user_id = ${owner.id}`);
      return { url: `/user/sessions/${row!.id}`, owner };
    },
  });
});

describe('DELETE /user/sessions (every other one)', () => {
  it('signs out every other session and keeps the current one', async () => {
    const user = await t.org();
    const a = await signIn(user);
    const b = await signIn(user);
    await t.as(a).get('/user');
    const res = await t.as(user).delete('/user/sessions');
    expect([res.statusCode, res.json()]).toEqual([200, { revokedSessions: 2 }]);
    for (const other of [a, b]) expectProblem(await t.as(other).get('/user'), 401, 'UNAUTHENTICATED');
    expect((await list(user)).map((s) => s.current)).toEqual([true]);
    expect((await t.as(user).delete('/user/sessions')).json()).toEqual({ revokedSessions: 0 });
  });

  it('called with an API token, signs out every session; the token keeps working and shows its last use', async () => {
    const user = await t.org();
    const token = (await t.as(user).post('/user/api-tokens', { name: 'CI' })).json();
    expect(token.lastUsedAt).toBeNull();
    const bearer = { ...user, headers: { authorization: `Bearer ${token.token}` } };
    const res = await t.as(bearer).delete('/user/sessions');
    expect([res.statusCode, res.json()]).toEqual([200, { revokedSessions: 1 }]);
    expectProblem(await t.as(user).get('/user'), 401, 'UNAUTHENTICATED');
    const [listed] = (await t.as(bearer).get('/user/api-tokens')).json();
    expect(listed.lastUsedAt).toMatch(ISO_MS);
  });

  it('a password change signs out the other sessions too', async () => {
    const user = await t.org();
    const other = await signIn(user);
    const res = await t.as(user).patch('/user/password', { currentPassword: PASSWORD, newPassword: 'another long password' });
    expect(res.statusCode).toBe(200);
    expectProblem(await t.as(other).get('/user'), 401, 'UNAUTHENTICATED');
    expect((await list(user)).map((s) => s.current)).toEqual([true]);
  });

  commonCases(t, 'DELETE /user/sessions', { method: 'DELETE', foreignId: false, setup: async (kit) => ({ url: '/user/sessions', owner: await kit.org() }) });
});

describe.runIf(onPostgres)('sessions: two instances on one PostgreSQL', () => {
  let other: FastifyInstance;
  beforeAll(async () => {
    other = await buildApp({ ...t.config });
  });
  afterAll(async () => {
    await other?.close();
  });

  it('a session revoked through one instance answers 401 on the other', async () => {
    const user = await t.org();
    const second = await signIn(user);
    const viaOther = () => other.inject({ method: 'GET', url: '/user', headers: second.headers });
    expect((await viaOther()).statusCode).toBe(200);
    await eventually(() => expect(other.readCache.credential(sha256(second.session))).not.toBeNull(), 2000);
    expect((await t.as(user).delete('/user/sessions')).statusCode).toBe(200);
    await eventually(async () => expect((await viaOther()).statusCode).toBe(401), 2000);
  });
});

describe('logs', () => {
  it('never carry a session', async () => {
    const user = await t.org();
    const second = await signIn(user);
    await t.as(user).get('/user/sessions');
    await t.as(user).delete('/user/sessions');
    await t.as(second).get('/user');
    const all = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(3);
    for (const secret of [user.session, second.session, PASSWORD]) expect(all).not.toContain(secret);
  });
});
