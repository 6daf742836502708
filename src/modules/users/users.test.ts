import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, fingerprint, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const t = useTestApp();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const USER_KEYS = [
  'activeOrganizationId', 'avatar', 'birthDate', 'codeHostLink', 'createdAt', 'email', 'emailVerified', 'id', 'jobTitle', 'language', 'messengerConnected', 'messengerLink', 'name', 'phoneNumber', 'updatedAt',
];

const login = async (user: TestUser, password = PASSWORD) => t.as(null).post('/auth/login', { email: user.email, password });
const getWith = (session: string, url: string) => t.app.inject({ method: 'GET', url, headers: { 'service-session': session } });

describe('GET /user', () => {
  it('answers the User form, every field present', async () => {
    const user = await t.org({ name: 'Ada Lovelace' });
    const res = await t.as(user).get('/user');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(USER_KEYS);
    expect(body).toMatchObject({
      id: user.id,
      email: user.email,
      name: 'Ada Lovelace',
      avatar: null,
      phoneNumber: null,
      messengerLink: null,
      messengerConnected: false,
      jobTitle: null,
      codeHostLink: null,
      birthDate: null,
      activeOrganizationId: user.organizationId,
      language: null,
    });
    expect(body.createdAt).toMatch(ISO_MS);
    expect(body.updatedAt).toMatch(ISO_MS);
  });

  commonCases(t, 'GET /user', { method: 'GET', setup: async (kit) => ({ url: '/user', owner: await kit.org() }) });
});

// Each single-property change: a good value, null where it clears, and values the schema refuses.
const PROPERTIES = [
  { path: 'name', field: 'name', good: 'Grace Hopper', nullable: false, bad: ['', '   ', 42, 'x'.repeat(501), null] },
  { path: 'birth-date', field: 'birthDate', good: '1990-05-17T08:30:00.000Z', nullable: true, bad: ['1990-05-17', 'yesterday', 19900517] },
  { path: 'phone-number', field: 'phoneNumber', good: '+4915112345678', nullable: true, bad: ['015112345678', '+0123456', '+49 151 1234', '+1234567890123456'] },
  { path: 'job-title', field: 'jobTitle', good: 'Rear admiral', nullable: true, bad: [42, 'x'.repeat(501)] },
  { path: 'messenger-link', field: 'messengerLink', good: 'https://messenger.example/ada', nullable: true, bad: ['not a url', 'ftp://files.example/x', 'javascript:alert(1)'] },
  { path: 'code-host-link', field: 'codeHostLink', good: 'https://code.example/ada', nullable: true, bad: ['code.example/ada', 'mailto:ada@example.test'] },
  { path: 'language', field: 'language', good: 'ru', nullable: true, bad: ['de', 'RU', 'english', ''] },
] as const;

describe.each(PROPERTIES)('PATCH /user/$path', ({ path, field, good, nullable, bad }) => {
  it('sets the value and answers the User', async () => {
    const user = await t.org();
    const res = await t.as(user).patch(`/user/${path}`, { [field]: good });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(USER_KEYS);
    expect(res.json()).toMatchObject({ id: user.id, [field]: good });
    expect((await t.as(user).get('/user')).json()[field]).toBe(good);
  });

  it.runIf(nullable)('clears the value with null', async () => {
    const user = await t.org();
    await t.as(user).patch(`/user/${path}`, { [field]: good });
    const res = await t.as(user).patch(`/user/${path}`, { [field]: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()[field]).toBeNull();
  });

  it('refuses each bad value with 400, changing nothing', async () => {
    const user = await t.org();
    await t.as(user).patch(`/user/${path}`, { [field]: good });
    const before = await fingerprint(t, [user.organizationId], [user.id]);
    for (const value of [...bad, undefined]) {
      const res = await t.as(user).patch(`/user/${path}`, value === undefined ? {} : { [field]: value });
      const problem = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([expect.objectContaining({ path: `/${field}`, message: expect.any(String) })]);
    }
    expect(await fingerprint(t, [user.organizationId], [user.id])).toBe(before);
  });

  commonCases(t, `PATCH /user/${path}`, {
    method: 'PATCH',
    setup: async (kit) => ({ url: `/user/${path}`, owner: await kit.org(), body: { [field]: good }, badBody: { [field]: bad[0] } }),
  });
});

describe('profile changes take only their own field', () => {
  it('ignores other fields in the body (no mass assignment)', async () => {
    const user = await t.org();
    const stranger = await t.org();
    const res = await t.as(user).patch('/user/name', {
      name: 'Renamed',
      email: 'evil@example.test',
      isOperator: true,
      passwordHash: 'x',
      activeOrganizationId: stranger.organizationId,
      jobTitle: 'Boss',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', email: user.email, jobTitle: null, activeOrganizationId: user.organizationId });
    const [row] = await t.sql<{ email: string; is_operator: boolean }>(sql`select email, is_operator from users where id = ${user.id}`);
    expect(row).toEqual({ email: user.email, is_operator: false });
    expect((await login(user)).statusCode).toBe(201);
  });

  it('trims the name', async () => {
    const user = await t.org();
    expect((await t.as(user).patch('/user/name', { name: '  Ada  ' })).json().name).toBe('Ada');
  });
});

describe('PATCH /user/clear-personal-data', () => {
  it('sets phone, birth date, job, links and avatar to null, keeping name and email', async () => {
    const user = await t.org({ name: 'Keeps Name' });
    for (const { path, field, good } of PROPERTIES.filter((p) => p.nullable)) {
      expect((await t.as(user).patch(`/user/${path}`, { [field]: good })).statusCode).toBe(200);
    }
    const res = await t.as(user).patch('/user/clear-personal-data');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: user.id,
      name: 'Keeps Name',
      email: user.email,
      avatar: null,
      phoneNumber: null,
      birthDate: null,
      jobTitle: null,
      messengerLink: null,
      messengerConnected: false,
      codeHostLink: null,
      // A preference, not personal data: the language stays.
      language: 'ru',
    });
    expect((await t.as(user).get('/user')).json().phoneNumber).toBeNull();
  });

  commonCases(t, 'PATCH /user/clear-personal-data', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      await kit.as(owner).patch('/user/job-title', { jobTitle: 'Kept' });
      return { url: '/user/clear-personal-data', owner };
    },
  });
});

describe('PATCH /user/password', () => {
  const NEW = 'a brand new passphrase';

  it('changes the password, revokes the other sessions and keeps the current one', async () => {
    const user = await t.org();
    const others = [(await login(user)).json().session as string, (await login(user)).json().session as string];
    const res = await t.as(user).patch('/user/password', { currentPassword: PASSWORD, newPassword: NEW });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ revokedSessions: 2 });
    for (const session of others) expectProblem(await getWith(session, '/user'), 401, 'UNAUTHENTICATED');
    expect((await t.as(user).get('/user')).statusCode).toBe(200);
    expectProblem(await login(user), 401, 'INVALID_CREDENTIALS');
    expect((await login(user, NEW)).statusCode).toBe(201);
  });

  it('refuses a wrong current password with 400, changing nothing and revoking nothing', async () => {
    const user = await t.org();
    const other = (await login(user)).json().session as string;
    const before = await t.sql(sql`select password_hash, updated_at from users where id = ${user.id}`);
    const res = await t.as(user).patch('/user/password', { currentPassword: 'not the password', newPassword: NEW });
    const problem = expectProblem(res, 400, 'WRONG_PASSWORD');
    expect(problem.errors).toEqual([{ path: '/currentPassword', message: 'is wrong' }]);
    expect(await t.sql(sql`select password_hash, updated_at from users where id = ${user.id}`)).toEqual(before);
    expect((await getWith(other, '/user')).statusCode).toBe(200);
    expect((await login(user)).statusCode).toBe(201);
  });

  it('refuses a new password shorter than 8 characters', async () => {
    const user = await t.org();
    const problem = expectProblem(await t.as(user).patch('/user/password', { currentPassword: PASSWORD, newPassword: 'short' }), 400, 'VALIDATION_FAILED');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/newPassword' })]);
    expect((await login(user)).statusCode).toBe(201);
  });

  commonCases(t, 'PATCH /user/password', {
    method: 'PATCH',
    setup: async (kit) => ({
      url: '/user/password',
      owner: await kit.org(),
      body: { currentPassword: PASSWORD, newPassword: NEW },
      badBody: { currentPassword: PASSWORD },
    }),
  });
});
