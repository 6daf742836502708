import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { answer, challenge, codeNext, enrol } from './two-factor.fixtures.js';

const t = useTestApp({ secretsKey: randomBytes(32).toString('base64') });
const RECOVERY = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/;
const hashes = async (user: TestUser) => (await t.sql<{ code_hash: string }>(sql`select code_hash from two_factor_recovery_codes where user_id = ${user.id} order by code_hash`)).map((r) => r.code_hash);

describe('POST /user/two-factor/recovery-codes', () => {
  it('issues 10 new codes with the password and a code; the old ones stop working, the new ones sign in', async () => {
    const user = await t.org();
    const { secret, recoveryCodes: old } = await enrol(t, user);
    // One old code spent first: the new set is whole again.
    expect((await answer(t, await challenge(t, user), old[0]!)).statusCode).toBe(201);
    const res = await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: codeNext(secret) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['recoveryCodes']);
    expect(body.recoveryCodes).toHaveLength(10);
    expect(new Set(body.recoveryCodes).size).toBe(10);
    for (const c of body.recoveryCodes) {
      expect(c).toMatch(RECOVERY);
      expect(old).not.toContain(c);
    }
    expect(await hashes(user)).toHaveLength(10);
    expect((await t.as(user).get('/user/two-factor')).json().recoveryCodesLeft).toBe(10);
    expectProblem(await answer(t, await challenge(t, user), old[1]!), 401, 'INVALID_CREDENTIALS');
    expect((await answer(t, await challenge(t, user), body.recoveryCodes[0])).statusCode).toBe(201);
    // The session stays: this is no sign-out.
    expect((await t.as(user).get('/user')).statusCode).toBe(200);
  });

  it('a recovery code may stand for the code, and is spent by it', async () => {
    const user = await t.org();
    const { recoveryCodes } = await enrol(t, user);
    const res = await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: recoveryCodes[2] });
    expect(res.statusCode).toBe(200);
    expectProblem(await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: recoveryCodes[2] }), 400, 'TWO_FACTOR_CODE_WRONG');
  });

  it('refuses a wrong password or a wrong or replayed code, and changes nothing', async () => {
    const user = await t.org();
    const { secret, confirmedWith } = await enrol(t, user);
    const before = await hashes(user);
    expectProblem(await t.as(user).post('/user/two-factor/recovery-codes', { password: 'wrong password!', code: codeNext(secret) }), 400, 'WRONG_PASSWORD');
    expectProblem(await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: confirmedWith }), 400, 'TWO_FACTOR_CODE_WRONG');
    expectProblem(await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: 'zzzz-zzzz-zzzz-zzzz' }), 400, 'TWO_FACTOR_CODE_WRONG');
    expect(await hashes(user)).toEqual(before);
  });

  it('answers 409 when two-factor sign-in is off', async () => {
    const user = await t.org();
    expectProblem(await t.as(user).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: '123456' }), 409, 'TWO_FACTOR_NOT_ENABLED');
    expect(await hashes(user)).toEqual([]);
  });

  it("only ever the caller's own: an admin of the same organization renews their own, never a member's", async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    await enrol(t, member);
    const { secret } = await enrol(t, owner);
    const memberBefore = await hashes(member);
    expect((await t.as(owner).post('/user/two-factor/recovery-codes', { password: PASSWORD, code: codeNext(secret) })).statusCode).toBe(200);
    expect(await hashes(member)).toEqual(memberBefore);
  });

  commonCases(t, 'POST /user/two-factor/recovery-codes', {
    method: 'POST',
    foreignId: false,
    setup: async (kit) => {
      const owner = await kit.org();
      const { secret } = await enrol(kit, owner);
      return { url: '/user/two-factor/recovery-codes', owner, body: { password: PASSWORD, code: codeNext(secret) }, badBody: { password: PASSWORD, code: '12' } };
    },
  });
});

describe('logs', () => {
  it('never carry a recovery code or the password', async () => {
    const user = await t.org({ password: 'log-secret-password-rc' });
    const { secret } = await enrol(t, user);
    const res = await t.as(user).post('/user/two-factor/recovery-codes', { password: 'log-secret-password-rc', code: codeNext(secret) });
    const all = t.logs.join('\n').toLowerCase();
    for (const s of ['log-secret-password-rc', ...res.json().recoveryCodes]) expect(all).not.toContain(s);
  });
});
