import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { answer, challenge, codeNext, codeNow, enrol, withSession } from './two-factor.fixtures.js';

// TOTP secrets are stored encrypted: on PostgreSQL the key must be given (platform/secrets.ts).
const t = useTestApp({ secretsKey: randomBytes(32).toString('base64') });
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RECOVERY = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/;

const status = async (user: Parameters<typeof t.as>[0]) => (await t.as(user).get('/user/two-factor')).json();

describe('enrolment', () => {
  it('a secret and its otpauth URI, confirmed by a first code: 10 recovery codes once, other sessions signed out', async () => {
    const user = await t.org();
    expect(await status(user)).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0, requiredByOrganization: false, enrolmentRequired: false });
    const other = (await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).json().session as string;

    const started = await t.as(user).post('/user/two-factor/enrolment');
    expect(started.statusCode).toBe(201);
    const { secret, uri } = started.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(uri);
    expect([url.protocol, url.host, url.searchParams.get('secret'), url.searchParams.get('period'), url.searchParams.get('digits')]).toEqual(['otpauth:', 'totp', secret, '30', '6']);
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
    const [stored] = await t.sql<{ secret: string; enabled_at: Date | null }>(sql`select secret, enabled_at from user_two_factor where user_id = ${user.id}`);
    expect(stored!.secret).not.toContain(secret);
    expect(stored!.secret).toMatch(/^v1\./);
    expect(stored!.enabled_at).toBeNull();

    // Not on until a right code confirms it; a wrong one changes nothing.
    expectProblem(await t.as(user).post('/user/two-factor/enrolment/confirm', { code: '000000' === codeNow(secret) ? '111111' : '000000' }), 400, 'TWO_FACTOR_CODE_WRONG');
    expect((await status(user)).enabled).toBe(false);
    expect((await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).statusCode).toBe(201);

    const confirmed = await t.as(user).post('/user/two-factor/enrolment/confirm', { code: codeNow(secret) });
    expect(confirmed.statusCode).toBe(200);
    const body = confirmed.json();
    expect(body.revokedSessions).toBe(2);
    expect(body.recoveryCodes).toHaveLength(10);
    expect(new Set(body.recoveryCodes).size).toBe(10);
    for (const c of body.recoveryCodes) expect(c).toMatch(RECOVERY);
    const hashes = await t.sql<{ code_hash: string }>(sql`select code_hash from two_factor_recovery_codes where user_id = ${user.id}`);
    expect(hashes).toHaveLength(10);
    for (const h of hashes) expect(body.recoveryCodes.map((c: string) => c.replace(/-/g, ''))).not.toContain(h.code_hash);

    expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers: { 'service-session': other } }), 401, 'UNAUTHENTICATED');
    const on = await status(user);
    expect(on).toMatchObject({ enabled: true, recoveryCodesLeft: 10, requiredByOrganization: false });
    expect(on.enabledAt).toMatch(ISO_MS);
    expectProblem(await t.as(user).post('/user/two-factor/enrolment'), 409, 'TWO_FACTOR_ALREADY_ENABLED');
    expectProblem(await t.as(user).post('/user/two-factor/enrolment/confirm', { code: codeNext(secret) }), 409, 'TWO_FACTOR_ALREADY_ENABLED');
  });

  it('confirming without an enrolment under way answers 409', async () => {
    const user = await t.org();
    expectProblem(await t.as(user).post('/user/two-factor/enrolment/confirm', { code: '123456' }), 409, 'TWO_FACTOR_NOT_ENABLED');
  });
});

describe('sign-in with a code', () => {
  it('the password answers a challenge (202) that is no credential; a right code opens the session, once', async () => {
    const user = await t.org();
    const { secret } = await enrol(t, user);
    const res = await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['challenge', 'expiresAt', 'methods', 'twoFactorRequired']);
    expect(body.methods).toEqual(['totp']);
    expect(body.twoFactorRequired).toBe(true);
    expect(new Date(body.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    // The half-signed-in state can do nothing else.
    for (const headers of [{ 'service-session': body.challenge }, { authorization: `Bearer ${body.challenge}` }]) {
      expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers }), 401, 'UNAUTHENTICATED');
    }

    expectProblem(await answer(t, body.challenge, '12345x'), 401, 'INVALID_CREDENTIALS');
    const done = await answer(t, body.challenge, codeNext(secret));
    expect(done.statusCode).toBe(201);
    expect(done.json().user).toMatchObject({ id: user.id, email: user.email });
    expect((await t.as(withSession(user, done.json().session)).get('/user')).statusCode).toBe(200);
    expectProblem(await answer(t, body.challenge, codeNext(secret)), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
  });

  it('refuses a replayed code: the one that confirmed enrolment, and one that already signed in', async () => {
    const user = await t.org();
    const { secret, confirmedWith } = await enrol(t, user);
    expectProblem(await answer(t, await challenge(t, user), confirmedWith), 401, 'INVALID_CREDENTIALS');
    const next = codeNext(secret);
    expect((await answer(t, await challenge(t, user), next)).statusCode).toBe(201);
    expectProblem(await answer(t, await challenge(t, user), next), 401, 'INVALID_CREDENTIALS');
  });

  it('recovery codes sign in once each, typed in any case and without dashes', async () => {
    const user = await t.org();
    const { recoveryCodes } = await enrol(t, user);
    const code = recoveryCodes[3]!;
    const done = await answer(t, await challenge(t, user), code.replace(/-/g, '').toUpperCase());
    expect(done.statusCode).toBe(201);
    expect((await status(withSession(user, done.json().session))).recoveryCodesLeft).toBe(9);
    expectProblem(await answer(t, await challenge(t, user), code), 401, 'INVALID_CREDENTIALS');
    expect((await answer(t, await challenge(t, user), recoveryCodes[4]!)).statusCode).toBe(201);
  });

  it('5 wrong codes end the challenge and make the account wait, like wrong passwords', async () => {
    const user = await t.org();
    const { secret } = await enrol(t, user);
    const token = await challenge(t, user);
    for (let i = 0; i < 5; i++) expectProblem(await answer(t, token, 'aaaa-bbbb-cccc-dddd'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await answer(t, token, codeNext(secret)), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
    const waited = await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD });
    expectProblem(waited, 429, 'RATE_LIMITED');
    expect(Number(waited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an expired challenge is refused, and nothing was spent by it', async () => {
    const user = await t.org();
    const { secret, recoveryCodes } = await enrol(t, user);
    const late = await challenge(t, user);
    await t.sql(sql`update sign_in_challenges set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    expectProblem(await answer(t, late, recoveryCodes[0]!), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
    expect((await answer(t, await challenge(t, user), recoveryCodes[0]!)).statusCode).toBe(201);
    expect((await answer(t, await challenge(t, user), codeNext(secret))).statusCode).toBe(201);
  });

  it('a wrong password never reaches the code step; bad input answers 400', async () => {
    const user = await t.org();
    await enrol(t, user);
    expectProblem(await t.as(null).post('/auth/login', { email: user.email, password: 'wrong password!' }), 401, 'INVALID_CREDENTIALS');
    for (const body of [{}, { challenge: 'x' }, { challenge: '', code: '123456' }, { challenge: 'x', code: 123456 }, { challenge: 'x', code: '1'.repeat(41) }]) {
      expectProblem(await t.as(null).post('/auth/login/two-factor', body), 400, 'VALIDATION_FAILED');
    }
    expectProblem(await answer(t, 'wmc_unknown', '123456'), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
  });
});

describe('turning it off', () => {
  it('needs the password and a code; then the password alone signs in', async () => {
    const user = await t.org();
    const { secret, recoveryCodes, confirmedWith } = await enrol(t, user);
    expectProblem(await t.as(user).delete('/user/two-factor', { password: 'wrong password!', code: codeNext(secret) }), 400, 'WRONG_PASSWORD');
    expectProblem(await t.as(user).delete('/user/two-factor', { password: PASSWORD, code: confirmedWith }), 400, 'TWO_FACTOR_CODE_WRONG');
    expect((await status(user)).enabled).toBe(true);
    const res = await t.as(user).delete('/user/two-factor', { password: PASSWORD, code: recoveryCodes[0] });
    expect([res.statusCode, res.body]).toEqual([204, '']);
    expect(await status(user)).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect(await t.sql(sql`select 1 from two_factor_recovery_codes where user_id = ${user.id}`)).toHaveLength(0);
    expect((await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).statusCode).toBe(201);
    expectProblem(await t.as(user).delete('/user/two-factor', { password: PASSWORD, code: '123456' }), 409, 'TWO_FACTOR_NOT_ENABLED');
  });
});

describe('common cases', () => {
  commonCases(t, 'GET /user/two-factor', { method: 'GET', foreignId: false, setup: async (kit) => ({ url: '/user/two-factor', owner: await kit.org() }) });
  commonCases(t, 'POST /user/two-factor/enrolment', { method: 'POST', foreignId: false, setup: async (kit) => ({ url: '/user/two-factor/enrolment', owner: await kit.org() }) });
  commonCases(t, 'POST /user/two-factor/enrolment/confirm', {
    method: 'POST',
    foreignId: false,
    setup: async (kit) => {
      const owner = await kit.org();
      await kit.as(owner).post('/user/two-factor/enrolment');
      return { url: '/user/two-factor/enrolment/confirm', owner, body: { code: '123456' }, badBody: { code: '12345' } };
    },
  });
  commonCases(t, 'DELETE /user/two-factor', {
    method: 'DELETE',
    foreignId: false,
    setup: async (kit) => {
      const owner = await kit.org();
      const { secret } = await enrol(kit, owner);
      return { url: '/user/two-factor', owner, body: { password: PASSWORD, code: codeNext(secret) }, badBody: { password: PASSWORD } };
    },
  });
});

describe('logs', () => {
  it('never carry a secret, a code, a challenge, a session or a password', async () => {
    const user = await t.org({ password: 'log-secret-password-2fa' });
    const { secret, recoveryCodes, confirmedWith } = await enrol(t, user);
    const token = await challenge(t, user, 'log-secret-password-2fa');
    const wrong = await answer(t, token, recoveryCodes[9]!.replace(/^..../, 'zzzz'));
    expect(wrong.statusCode).toBe(401);
    const done = await answer(t, token, recoveryCodes[1]!);
    await t.as(user).delete('/user/two-factor', { password: 'log-secret-password-2fa', code: codeNext(secret) });
    const all = t.logs.join('\n').toLowerCase();
    expect(t.logs.length).toBeGreaterThan(10);
    for (const s of [secret, token, done.json().session, user.session, 'log-secret-password-2fa', ...recoveryCodes, ...recoveryCodes.map((c) => c.replace(/-/g, ''))]) {
      expect(all).not.toContain(s.toLowerCase());
    }
    // Six digits turn up inside timestamps and durations: a code is looked for standing alone.
    for (const code of [confirmedWith, codeNow(secret), codeNext(secret)]) expect(all).not.toMatch(new RegExp(`(?<![0-9.])${code}(?![0-9])`));
  });
});
