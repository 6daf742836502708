import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { generateKeyPairSync } from 'node:crypto';
import { PASSWORD, expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { APP_URL, signIn, useTestProvider } from './oidc.fixtures.js';

const { idp, overrides } = useTestProvider();
const t = useTestApp(overrides);

const fresh = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
const identities = (userId: number) => t.sql<{ subject: string }>(sql`select subject from oidc_identities where user_id = ${userId}`);

describe('single sign-on: the code flow against a real OpenID provider', () => {
  it('says it is on, and under which name', async () => {
    const res = await t.as(null).get('/auth/oidc');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ enabled: true, displayName: 'Test IdP', passwordSignIn: true });
  });

  it('starts with PKCE S256, state and nonce, discovered from the issuer', async () => {
    const res = await t.as(null).get('/auth/oidc/authorization-url');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    const url = new URL(body.url);
    expect(url.origin + url.pathname).toBe(`${idp.url}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: idp.clientId,
      redirect_uri: `${APP_URL}/auth/oidc/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      state: expect.stringMatching(/^[\w-]{43}$/),
      nonce: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(body.transaction).toMatch(/^[\w-]+$/);
    // Sealed: neither the state nor the nonce can be read from it.
    expect(body.transaction).not.toContain(url.searchParams.get('state'));
    const minutes = (new Date(body.expiresAt).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
  });

  it('creates the account on the first sign-in and reuses it on the second', async () => {
    const sub = fresh('new');
    const email = `${sub}@corp.test`;
    idp.accounts.set(sub, { email, email_verified: true, name: 'Ada Lovelace' });
    const first = await signIn(t, idp, sub);
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body).toEqual({ session: expect.stringMatching(/^\S+$/), user: expect.objectContaining({ email, name: 'Ada Lovelace' }) });
    // The session works, in an organization of the user's own.
    const me = await t.as(null).request('GET', '/user', undefined, { 'service-session': body.session });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: body.user.id, email });
    expect(await identities(body.user.id)).toEqual([{ subject: sub }]);

    const second = await signIn(t, idp, sub);
    expect(second.statusCode).toBe(201);
    expect(second.json().user.id).toBe(body.user.id);
    expect(second.json().session).not.toBe(body.session);
    const [{ n }] = await t.sql<{ n: number }>(sql`select count(*)::int as n from users where lower(email) = ${email}`);
    expect(n).toBe(1);
  });

  it('refuses a transaction that was altered or never issued, without calling the provider', async () => {
    const res = await t.as(null).post('/auth/oidc/callback', { transaction: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', code: 'x', state: 'y' });
    expectProblem(res, 400, 'OIDC_STATE_INVALID');
  });
});

describe('single sign-on: linking an existing account', () => {
  it('links by an email the provider verified, and signs in to that account', async () => {
    const owner = await t.org();
    const sub = fresh('link');
    idp.accounts.set(sub, { email: owner.email.toUpperCase(), email_verified: true, name: 'Someone Else' });
    const res = await signIn(t, idp, sub);
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ id: owner.id, email: owner.email, name: owner.name });
    expect(await identities(owner.id)).toEqual([{ subject: sub }]);
  });

  it('refuses an unverified email: no link, no session, no account', async () => {
    const owner = await t.org();
    const sub = fresh('unverified');
    idp.accounts.set(sub, { email: owner.email, email_verified: false });
    const before = await t.sql<{ n: number }>(sql`select count(*)::int as n from sessions where user_id = ${owner.id}`);
    expectProblem(await signIn(t, idp, sub), 403, 'OIDC_EMAIL_UNVERIFIED');
    expect(await identities(owner.id)).toEqual([]);
    expect(await t.sql(sql`select count(*)::int as n from sessions where user_id = ${owner.id}`)).toEqual(before);
    // Without email_verified at all, the same.
    const bare = fresh('bare');
    idp.accounts.set(bare, { email: `${bare}@corp.test` });
    expectProblem(await signIn(t, idp, bare), 403, 'OIDC_EMAIL_UNVERIFIED');
    expect(await t.sql(sql`select id from users where email = ${`${bare}@corp.test`}`)).toEqual([]);
  });
});

describe('single sign-on: ID tokens that must not validate', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: Array<[string, () => typeof idp.tamper]> = [
    ['a wrong nonce', () => ({ claims: { nonce: 'not-the-one-we-sent' } })],
    ['a wrong audience', () => ({ claims: { aud: 'another-client' } })],
    ['an expired token', () => ({ claims: { iat: now() - 7200, exp: now() - 3600 } })],
    ['a wrong issuer', () => ({ claims: { iss: 'https://evil.example.test' } })],
    ['a signature by a key not in the JWKS', () => ({ claims: {}, key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey })],
  ];
  it.each(cases)('refuses %s with 401, creating nothing', async (_name, tamper) => {
    const sub = fresh('tampered');
    const email = `${sub}@corp.test`;
    idp.accounts.set(sub, { email, email_verified: true });
    idp.tamper = tamper();
    try {
      expectProblem(await signIn(t, idp, sub), 401, 'OIDC_SIGN_IN_FAILED');
    } finally {
      idp.tamper = null;
    }
    expect(await t.sql(sql`select id from users where email = ${email}`)).toEqual([]);
    // The same account signs in once the token is honest.
    expect((await signIn(t, idp, sub)).statusCode).toBe(201);
  });
});

describe('single sign-on: signing out', () => {
  it('revokes the session here and sends the browser to the provider’s end-session endpoint', async () => {
    const sub = fresh('out');
    idp.accounts.set(sub, { email: `${sub}@corp.test`, email_verified: true });
    const { session } = (await signIn(t, idp, sub)).json();
    const headers = { 'service-session': session };
    const res = await t.as(null).request('POST', '/auth/oidc/logout', undefined, headers);
    expect(res.statusCode).toBe(200);
    const url = new URL(res.json().endSessionUrl);
    expect(url.origin + url.pathname).toBe(`${idp.url}/session/end`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: idp.clientId, post_logout_redirect_uri: APP_URL });
    expectProblem(await t.as(null).request('GET', '/user', undefined, headers), 401, 'UNAUTHENTICATED');
    // The provider knows the client and the return address: it answers its sign-out page.
    expect((await fetch(url)).status).toBe(200);
  });
});

commonCases(t, 'POST /auth/oidc/logout', { method: 'POST', foreignId: false, setup: async () => ({ url: '/auth/oidc/logout', owner: await t.org() }) });

describe('single sign-on: the callback’s input', () => {
  it('answers 400 to a body without code or state', async () => {
    const res = await t.as(null).post('/auth/oidc/callback', { transaction: 'x', code: '' });
    expect(typeof expectProblem(res, 400).detail).toBe('string');
  });
});

describe('single sign-on: logs', () => {
  it('never carry the client secret, a code, a token, a session or a password', () => {
    expect(idp.issued.length).toBeGreaterThan(10);
    // The refusals were logged (with their reason), so the lines checked are the ones that matter.
    expect(t.logs.filter((l) => l.includes('single sign-on: the sign-in was refused')).length).toBeGreaterThanOrEqual(5);
    const secrets = [idp.clientSecret, PASSWORD, ...idp.issued];
    const sessions = t.logs.join('\n').match(/wm[st]_[\w-]{10,}/g) ?? [];
    for (const line of t.logs) for (const secret of secrets) expect(line.includes(secret), `a log line holds a secret: ${line.slice(0, 200)}`).toBe(false);
    expect(sessions).toEqual([]);
  });
});
