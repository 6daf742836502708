import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { sha256 } from '../../../platform/crypto.js';
import { resetOperatorTwoFactor } from '../operator.service.js';
import { eventually, listen, WsClient } from '../../events/realtime.fixtures.js';
import { answer, challenge, codeNext, enrol } from './two-factor.fixtures.js';

// TOTP secrets are stored encrypted: on PostgreSQL the key must be given (platform/secrets.ts).
const t = useTestApp({ secretsKey: randomBytes(32).toString('base64') });
const root = path.resolve(import.meta.dirname, '../../../..');

describe("the organization's requirement", () => {
  it('an admin turns it on; a member without two-factor can then only enrol, and everything answers once they do', async () => {
    const owner = await t.org();
    await enrol(t, owner);
    const member = await t.member(owner);
    const token = (await t.as(member).post('/user/api-tokens', { name: 'CI' })).json().token as string;
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
    expect(t.app.readCache.credential(sha256(member.session))).not.toBeNull();

    expect((await t.as(owner).get('/user/organization/two-factor-required')).json()).toEqual({ twoFactorRequired: false });
    const res = await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true });
    expect([res.statusCode, res.json()]).toEqual([200, { twoFactorRequired: true }]);

    // At once, even for a credential resolved from the cache a moment ago; API tokens too.
    for (const headers of [member.headers, { authorization: `Bearer ${token}` }]) {
      expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers }), 403, 'TWO_FACTOR_ENROLMENT_REQUIRED');
    }
    expectProblem(await t.as(member).get('/user/sessions'), 403, 'TWO_FACTOR_ENROLMENT_REQUIRED');
    expect((await t.as(member).get('/user/two-factor')).json()).toMatchObject({ enabled: false, requiredByOrganization: true, enrolmentRequired: true });
    // The owner, enrolled, is not held back.
    expect((await t.as(owner).get('/user')).statusCode).toBe(200);

    await enrol(t, member);
    expect((await t.as(member).get('/user/two-factor')).json()).toMatchObject({ enabled: true, enrolmentRequired: false });
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);

    expect((await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: false })).json()).toEqual({ twoFactorRequired: false });
  });

  it('a member who must enrol gets no real-time stream either', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true });
    const client = await WsClient.open(await listen(t.app), member.headers);
    await eventually(() => expect(client.closed?.code).toBe(4403), 5000);
    expectProblem(await t.as(member).get('/events'), 403, 'TWO_FACTOR_ENROLMENT_REQUIRED');
  });

  it('a member who must enrol can still sign out', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true });
    expect((await t.as(member).post('/auth/logout')).statusCode).toBe(204);
    expectProblem(await t.as(member).get('/user/two-factor'), 401, 'UNAUTHENTICATED');
  });

  it('single sign-on users are exempt: their provider owns the second factor', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    await t.sql(sql`insert into oidc_identities (user_id, issuer, subject) values (${member.id}, 'https://idp.example.test', ${`sub-${member.id}`})`);
    await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true });
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
    expect((await t.as(member).get('/user/two-factor')).json()).toMatchObject({ enabled: false, requiredByOrganization: true, enrolmentRequired: false });
  });

  it('only for organization admins: a member answers 403, and the setting stays', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    const member = await t.member(owner);
    expectProblem(await t.as(member).patch('/user/organization/two-factor-required', { twoFactorRequired: true }), 403, 'FORBIDDEN');
    expect((await t.as(member).get('/user/organization/two-factor-required')).json()).toEqual({ twoFactorRequired: false });
    expect((await t.as(admin).patch('/user/organization/two-factor-required', { twoFactorRequired: true })).statusCode).toBe(200);
    // Another organization's setting is untouched.
    const stranger = await t.org();
    expect((await t.as(stranger).get('/user/organization/two-factor-required')).json()).toEqual({ twoFactorRequired: false });
  });

  commonCases(t, 'GET /user/organization/two-factor-required', {
    method: 'GET',
    foreignId: false,
    setup: async (kit) => ({ url: '/user/organization/two-factor-required', owner: await kit.org() }),
  });
  commonCases(t, 'PATCH /user/organization/two-factor-required', {
    method: 'PATCH',
    foreignId: false,
    setup: async (kit) => {
      const owner = await kit.org();
      const forbidden = await kit.member(owner);
      return { url: '/user/organization/two-factor-required', owner, forbidden, body: { twoFactorRequired: true }, badBody: { twoFactorRequired: 'yes' } };
    },
  });
});

describe('operator reset (npm run create-admin -- <email> --reset-2fa)', () => {
  it('turns two-factor sign-in off and signs out every session; the password alone signs in again', async () => {
    const user = await t.org();
    const { secret } = await enrol(t, user);
    expect((await answer(t, await challenge(t, user), codeNext(secret))).statusCode).toBe(201);
    const result = await resetOperatorTwoFactor(t.app, user.email.toUpperCase());
    expect(result).toEqual({ userId: user.id, email: user.email.toLowerCase(), hadTwoFactor: true, revokedSessions: 2 });
    expectProblem(await t.as(user).get('/user'), 401, 'UNAUTHENTICATED');
    expect(await t.sql(sql`select 1 from user_two_factor where user_id = ${user.id} union all select 1 from two_factor_recovery_codes where user_id = ${user.id}`)).toHaveLength(0);
    const login = await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD });
    expect(login.statusCode).toBe(201);
    await expect(resetOperatorTwoFactor(t.app, 'nobody-here@example.test')).rejects.toThrow('no account with the email nobody-here@example.test');
  });

  it('the command refuses --reset-2fa combined with promotion options', async () => {
    const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn('npm', ['run', '--silent', 'create-admin', '--', 'a@example.test', '--reset-2fa', '--reset-password'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.on('exit', (code) => resolve({ code, text }));
    });
    expect(output.code).toBe(2);
    expect(output.text).toContain('--reset-2fa');
  }, 60_000);
});
