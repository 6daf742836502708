import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
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
