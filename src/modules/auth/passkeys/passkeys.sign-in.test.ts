import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { answer, challenge, codeNext, enrol, withSession } from '../two-factor/two-factor.fixtures.js';
import { addPasskey, signInOptions, SoftAuthenticator, type SoftCredential } from './passkeys.fixtures.js';

const ORIGIN = 'http://localhost:3999';
const t = useTestApp({ publicUrl: ORIGIN, secretsKey: randomBytes(32).toString('base64') });
const device = () => new SoftAuthenticator(ORIGIN, 'localhost');

type Assertion = ReturnType<SoftAuthenticator['get']>;
/** A usernameless sign-in: fresh options, the authenticator's answer (changed by `edit`), the verification. */
async function passkeySignIn(credential: SoftCredential, o: Parameters<SoftAuthenticator['get']>[2] = {}, edit: (a: Assertion) => Assertion = (a) => a) {
  const { challengeId, options } = await signInOptions(t);
  return t.app.inject({ method: 'POST', url: '/auth/passkey', headers: { 'user-agent': 'Passkey Browser/1.0' }, payload: { challengeId, response: edit(device().get(credential, options, o)) } });
}
const counterOf = async (credential: SoftCredential) => (await t.sql<{ counter: number }>(sql`select counter from passkeys where credential_id = ${credential.id}`))[0]!.counter;

describe('POST /auth/passkey/options', () => {
  it('answers request options without allowCredentials, user verification required, and a single-use id', async () => {
    const res = await t.as(null).post('/auth/passkey/options');
    expect(res.statusCode).toBe(201);
    const { challengeId, options } = res.json();
    expect(challengeId).toMatch(/^wpk_/);
    expect(Object.keys(options).sort()).toEqual(['challenge', 'rpId', 'timeout', 'userVerification']);
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
  });
});

describe('POST /auth/passkey (a passkey alone)', () => {
  it('opens a normal session, no code asked even with an authenticator app on; the counter and last use move on', async () => {
    const user = await t.org();
    await enrol(t, user);
    const credential = await addPasskey(t, user, device(), 'Laptop', 5);
    const res = await passkeySignIn(credential);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['session', 'user']);
    expect(body.user).toMatchObject({ id: user.id, email: user.email });
    const signedIn = withSession(user, body.session);
    expect((await t.as(signedIn).get('/user')).statusCode).toBe(200);
    // The session is like any other: listed, with the client it came from.
    const sessions = (await t.as(signedIn).get('/user/sessions')).json() as Array<{ current: boolean; userAgent: string }>;
    expect(sessions.find((s) => s.current)!.userAgent).toBe('Passkey Browser/1.0');
    expect(await counterOf(credential)).toBe(6);
    expect((await t.as(signedIn).get('/user/passkeys')).json()[0].lastUsedAt).not.toBeNull();
  });

  it('a challenge answers once', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device());
    const { challengeId, options } = await signInOptions(t);
    const response = device().get(credential, options);
    expect((await t.as(null).post('/auth/passkey', { challengeId, response })).statusCode).toBe(201);
    expectProblem(await t.as(null).post('/auth/passkey', { challengeId, response }), 400, 'PASSKEY_CHALLENGE_EXPIRED');
    const late = await signInOptions(t);
    await t.sql(sql`update passkey_challenges set expires_at = now() - interval '1 second' where purpose = 'sign-in'`);
    expectProblem(await t.as(null).post('/auth/passkey', { challengeId: late.challengeId, response: device().get(credential, late.options) }), 400, 'PASSKEY_CHALLENGE_EXPIRED');
  });

  it('refuses an assertion made for another origin or relying party, or without user verification', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device());
    for (const o of [{ origin: 'http://evil.example' }, { origin: 'http://localhost:4000' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      expectProblem(await passkeySignIn(credential, o), 401, 'INVALID_CREDENTIALS');
    }
    expect((await passkeySignIn(credential)).statusCode).toBe(201);
  });

  it("refuses another user's credential: a user handle that is not its owner's, and a signature by another key", async () => {
    const owner = await t.org();
    const other = await t.org();
    const mine = await addPasskey(t, owner, device());
    const theirs = await addPasskey(t, other, device());
    // Owner's credential claiming to be the other user.
    expectProblem(await passkeySignIn(mine, { userHandle: theirs.userHandle }), 401, 'INVALID_CREDENTIALS');
    // The other user's credential id, signed with the owner's key.
    expectProblem(await passkeySignIn({ ...mine, id: theirs.id, userHandle: theirs.userHandle }), 401, 'INVALID_CREDENTIALS');
    // A credential nobody registered.
    expectProblem(await passkeySignIn({ ...mine, id: Buffer.from('nobody').toString('base64url') }), 401, 'INVALID_CREDENTIALS');
    expect((await passkeySignIn(theirs)).json().user.id).toBe(other.id);
  });

  it('refuses a counter that goes backwards or stands still (a cloned authenticator); a counter of 0 stays allowed', async () => {
    const user = await t.org();
    const counted = await addPasskey(t, user, device(), 'Key', 10);
    expect((await passkeySignIn(counted, { counter: 11 })).statusCode).toBe(201);
    for (const counter of [11, 9, 0]) expectProblem(await passkeySignIn(counted, { counter }), 401, 'INVALID_CREDENTIALS');
    expect(await counterOf(counted)).toBe(11);
    const synced = await addPasskey(t, user, device(), 'Synced', 0);
    for (let i = 0; i < 2; i++) expect((await passkeySignIn(synced, { counter: 0 })).statusCode).toBe(201);
  });

  it('failed tries count like wrong passwords: after them the account waits, with Retry-After', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device());
    for (let i = 0; i < 5; i++) expectProblem(await passkeySignIn(credential, { origin: 'http://evil.example' }), 401, 'INVALID_CREDENTIALS');
    const waited = await passkeySignIn(credential);
    expectProblem(waited, 429, 'RATE_LIMITED');
    expect(Number(waited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a deactivated member signs in with a passkey no more than with a password', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const credential = await addPasskey(t, member, device());
    await t.sql(sql`update organization_members set active = false where user_id = ${member.id}`);
    expectProblem(await passkeySignIn(credential), 401, 'ACCOUNT_DEACTIVATED');
  });

  it('under OIDC_ONLY answers 403 to everyone but operators: a passkey is no way round the provider', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device(), 'Key', 1);
    const operators = t.config.operatorEmails;
    t.config.oidcOnly = true;
    try {
      expectProblem(await passkeySignIn(credential), 403, 'PASSWORD_SIGN_IN_DISABLED');
      expect(await counterOf(credential)).toBe(1);
      t.config.operatorEmails = [user.email.toLowerCase()];
      expect((await passkeySignIn(credential)).statusCode).toBe(201);
    } finally {
      t.config.oidcOnly = false;
      t.config.operatorEmails = operators;
    }
  });

  it('answers 400 to a bad body, and nothing is spent', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device());
    const { challengeId, options } = await signInOptions(t);
    const response = device().get(credential, options);
    for (const body of [{}, { challengeId }, { response }, { challengeId: '', response }, { challengeId, response: { ...response, response: { ...response.response, signature: undefined } } }, { challengeId, response: { ...response, type: 'x' } }]) {
      expectProblem(await t.as(null).post('/auth/passkey', body), 400, 'VALIDATION_FAILED');
    }
    expect((await t.as(null).post('/auth/passkey', { challengeId, response })).statusCode).toBe(201);
  });
});

describe('a passkey as the second factor of a password sign-in', () => {
  const secondStep = async (user: TestUser, credential: SoftCredential, token?: string) => {
    const signIn = token ?? (await challenge(t, user));
    const started = await t.as(null).post('/auth/login/two-factor/passkey/options', { challenge: signIn });
    expect(started.statusCode, started.body).toBe(201);
    const { challengeId, options } = started.json();
    return { signIn, challengeId, options, response: device().get(credential, options, { userVerified: false }) };
  };

  it('a user with a passkey gets the challenge after the password, and answers it with the passkey', async () => {
    const user = await t.org();
    const credential = await addPasskey(t, user, device());
    const login = await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD });
    expect(login.statusCode).toBe(202);
    expect(login.json().methods).toEqual(['passkey']);
    const { signIn, challengeId, options, response } = await secondStep(user, credential, login.json().challenge);
    expect(options.allowCredentials).toEqual([{ id: credential.id, type: 'public-key', transports: ['internal'] }]);
    expect(options.userVerification).toBe('preferred');
    const done = await t.as(null).post('/auth/login/two-factor/passkey', { challenge: signIn, challengeId, response });
    expect(done.statusCode).toBe(201);
    expect((await t.as(withSession(user, done.json().session)).get('/user')).statusCode).toBe(200);
    // The sign-in challenge was spent with it.
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey/options', { challenge: signIn }), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
  });

  it('with both an app and a passkey, either answers', async () => {
    const user = await t.org();
    const { secret } = await enrol(t, user);
    const credential = await addPasskey(t, user, device());
    const login = await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD });
    expect(login.json().methods).toEqual(['totp', 'passkey']);
    expect((await answer(t, login.json().challenge, codeNext(secret))).statusCode).toBe(201);
    const step = await secondStep(user, credential);
    expect((await t.as(null).post('/auth/login/two-factor/passkey', { challenge: step.signIn, challengeId: step.challengeId, response: step.response })).statusCode).toBe(201);
  });

  it("refuses another user's passkey and another origin; wrong answers count against the sign-in", async () => {
    const user = await t.org();
    const other = await t.org();
    const mine = await addPasskey(t, user, device());
    const theirs = await addPasskey(t, other, device());
    const step = await secondStep(user, mine);
    const foreign = device().get(theirs, step.options, { userVerified: false });
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey', { challenge: step.signIn, challengeId: step.challengeId, response: foreign }), 401, 'INVALID_CREDENTIALS');
    // Its WebAuthn challenge is spent; a new one for another origin is refused too.
    const again = await t.as(null).post('/auth/login/two-factor/passkey/options', { challenge: step.signIn });
    const evil = device().get(mine, again.json().options, { origin: 'http://evil.example', userVerified: false });
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey', { challenge: step.signIn, challengeId: again.json().challengeId, response: evil }), 401, 'INVALID_CREDENTIALS');
    const [row] = await t.sql<{ failures: number }>(sql`select failures from sign_in_challenges where user_id = ${user.id}`);
    expect(row!.failures).toBe(2);
    // Another sign-in's WebAuthn challenge is not this one's.
    const otherStep = await secondStep(other, theirs);
    expectProblem(
      await t.as(null).post('/auth/login/two-factor/passkey', { challenge: step.signIn, challengeId: otherStep.challengeId, response: device().get(mine, otherStep.options) }),
      400,
      'PASSKEY_CHALLENGE_EXPIRED',
    );
  });

  it('a user without a passkey is told to answer with a code; bad input answers 400; an unknown challenge 401', async () => {
    const user = await t.org();
    await enrol(t, user);
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey/options', { challenge: await challenge(t, user) }), 400, 'PASSKEY_NOT_VERIFIED');
    for (const body of [{}, { challenge: '' }, { challenge: 5 }]) expectProblem(await t.as(null).post('/auth/login/two-factor/passkey/options', body), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey', { challenge: 'x' }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(null).post('/auth/login/two-factor/passkey/options', { challenge: 'wmc_unknown' }), 401, 'SIGN_IN_CHALLENGE_EXPIRED');
  });
});

describe("the organization's two-factor requirement", () => {
  it('a passkey satisfies it: a member who must enrol may add one, and then everything answers', async () => {
    const owner = await t.org();
    await enrol(t, owner);
    const member = await t.member(owner);
    await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true });
    expectProblem(await t.as(member).get('/user'), 403, 'TWO_FACTOR_ENROLMENT_REQUIRED');
    expect((await t.as(member).get('/user/passkeys')).statusCode).toBe(200);
    const credential = await addPasskey(t, member, device());
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
    expect((await t.as(member).get('/user/two-factor')).json()).toMatchObject({ enabled: false, enrolmentRequired: false });
    const res = await passkeySignIn(credential);
    expect((await t.as(withSession(member, res.json().session)).get('/user')).statusCode).toBe(200);
    // Without it, the member is held back again.
    await t.as(member).delete(`/user/passkeys/${credential.passkeyId}`);
    expectProblem(await t.as(member).get('/user'), 403, 'TWO_FACTOR_ENROLMENT_REQUIRED');
  });

  it('the operator reset removes passkeys too', async () => {
    const user = await t.org();
    await addPasskey(t, user, device());
    const { resetOperatorTwoFactor } = await import('../operator.service.js');
    expect(await resetOperatorTwoFactor(t.app, user.email)).toMatchObject({ hadTwoFactor: true });
    expect(await t.sql(sql`select 1 from passkeys where user_id = ${user.id}`)).toHaveLength(0);
    expect((await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).statusCode).toBe(201);
  });
});

describe('logs', () => {
  it('never carry a challenge, a credential, a signature, a session or a password', async () => {
    const user = await t.org({ password: 'log-secret-password-pk' });
    const credential = await addPasskey(t, user, device());
    const { challengeId, options } = await signInOptions(t);
    const response = device().get(credential, options);
    const done = await t.as(null).post('/auth/passkey', { challengeId, response });
    await passkeySignIn(credential, { origin: 'http://evil.example' });
    const all = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5);
    for (const s of [challengeId, options.challenge, credential.id, response.response.signature, response.response.clientDataJSON, done.json().session, user.session, 'log-secret-password-pk']) {
      expect(all).not.toContain(s);
    }
  });
});
