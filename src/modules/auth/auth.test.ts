import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const t = useTestApp();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('register and login', () => {
  it('registers a user with its own organization and logs in', async () => {
    const email = `Reg-${Date.now()}@Example.test`;
    const res = await t.as(null).post('/auth/register', { email, password: PASSWORD, name: 'Ada' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.session).toMatch(/^wms_/);
    expect(body.user).toMatchObject({ email: email.toLowerCase(), name: 'Ada', avatar: null, activeOrganizationId: body.organization.id });
    expect(body.organization).toMatchObject({ ownerId: body.user.id, role: 'owner', activeOrganizationUsersCount: 1 });
    expect(body.organization.createdAt).toMatch(ISO_MS);

    const login = await t.as(null).post('/auth/login', { email: email.toUpperCase(), password: PASSWORD });
    expect(login.statusCode).toBe(201);
    expect(login.json().user.id).toBe(body.user.id);
    expect(login.json().session).not.toBe(body.session);
  });

  it('refuses a taken email with 409 and creates nothing', async () => {
    const user = await t.org();
    const [before] = await t.sql<{ n: number }>(sql`select count(*)::int as n from users`);
    const res = await t.as(null).post('/auth/register', { email: user.email.toUpperCase(), password: PASSWORD, name: 'Again' });
    expectProblem(res, 409, 'EMAIL_TAKEN');
    const [after] = await t.sql<{ n: number }>(sql`select count(*)::int as n from users where lower(email) = ${user.email.toLowerCase()}`);
    expect(after!.n).toBe(1);
    expect(before!.n).toBeGreaterThan(0);
  });

  it('validates the register body (400, nothing created)', async () => {
    const email = `bad-${Date.now()}@example.test`;
    for (const body of [{ email, password: 'short', name: 'X' }, { email: 'not-an-email', password: PASSWORD, name: 'X' }, { email, password: PASSWORD, name: '' }, { email, password: PASSWORD }]) {
      const res = await t.as(null).post('/auth/register', body);
      const problem = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(Array.isArray(problem.errors)).toBe(true);
    }
    expect(await t.sql(sql`select id from users where email = ${email}`)).toHaveLength(0);
  });

  it('answers a wrong password and an unknown email alike with 401', async () => {
    const user = await t.org();
    expectProblem(await t.as(null).post('/auth/login', { email: user.email, password: 'wrong password!' }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.as(null).post('/auth/login', { email: `nobody-${Date.now()}@example.test`, password: PASSWORD }), 401, 'INVALID_CREDENTIALS');
  });

  it('accepts the session in either header', async () => {
    const user = await t.org();
    const a = await t.app.inject({ method: 'GET', url: '/user', headers: { 'service-session': user.session } });
    const b = await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: `Bearer ${user.session}` } });
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
  });

  it('answers 401 in the problem shape for a missing or unknown credential', async () => {
    expectProblem(await t.as(null).get('/user'), 401, 'UNAUTHENTICATED');
    expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: 'Bearer wms_nope' } }), 401, 'UNAUTHENTICATED');
  });
});

describe('sessions', () => {
  it('logs out: the session stops working', async () => {
    const user = await t.org();
    const res = await t.as(user).post('/auth/logout');
    expect(res.statusCode).toBe(204);
    expectProblem(await t.as(user).get('/user'), 401);
  });
});

describe('API tokens', () => {
  it('creates a token shown once, which then authenticates as Bearer; revoke stops it', async () => {
    const user = await t.org();
    const res = await t.as(user).post('/user/api-tokens', { name: 'CI' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.token).toMatch(/^wmt_/);
    expect(created).toMatchObject({ name: 'CI', organizationId: user.organizationId, expiresAt: null });
    const [stored] = await t.sql<{ token_hash: string }>(sql`select token_hash from api_tokens where id = ${created.id}`);
    expect(stored!.token_hash).not.toContain(created.token);

    const asToken = { authorization: `Bearer ${created.token}` };
    const me = await t.app.inject({ method: 'GET', url: '/user', headers: asToken });
    expect(me.json().id).toBe(user.id);

    const list = (await t.as(user).get('/user/api-tokens')).json();
    expect(list).toHaveLength(1);
    expect(list[0].token).toBeUndefined();

    expect((await t.as(user).delete(`/user/api-tokens/${created.id}`)).statusCode).toBe(204);
    expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers: asToken }), 401);
  });

  it('refuses an expiry in the past', async () => {
    const user = await t.org();
    expectProblem(await t.as(user).post('/user/api-tokens', { name: 'old', expiresAt: '2000-01-01T00:00:00.000Z' }), 400);
    expect((await t.as(user).get('/user/api-tokens')).json()).toHaveLength(0);
  });

  commonCases(t, 'POST /user/api-tokens', {
    method: 'POST',
    foreignId: false,
    setup: async (kit) => ({ url: '/user/api-tokens', owner: await kit.org(), body: { name: 'x' }, badBody: { name: 42 } }),
  });
  commonCases(t, 'DELETE /user/api-tokens/{id}', {
    method: 'DELETE',
    setup: async (kit) => {
      const owner = await kit.org();
      const id = (await kit.as(owner).post('/user/api-tokens', { name: 'x' })).json().id;
      return { url: `/user/api-tokens/${id}`, owner };
    },
  });
});

describe('logs', () => {
  it('never writes a password, session or token to a log line', async () => {
    const user = await t.org({ password: 'log-secret-password-123' });
    const token = (await t.as(user).post('/user/api-tokens', { name: 'log' })).json().token as string;
    await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: `Bearer ${token}` } });
    await t.as(null).post('/auth/login', { email: user.email, password: 'log-secret-password-123' });
    await t.as(null).post('/auth/login', { email: user.email, password: 'wrong-secret-password-456' });
    await t.as(user).patch('/user/password', { currentPassword: 'log-secret-password-123', newPassword: 'new-secret-password-789' });
    const all = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5);
    for (const secret of [user.session, token, 'log-secret-password-123', 'wrong-secret-password-456', 'new-secret-password-789']) {
      expect(all).not.toContain(secret);
    }
  });
});
