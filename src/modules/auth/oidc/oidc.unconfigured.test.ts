import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../../test/app.js';

// Without OIDC_* the routes say so; with an issuer the outbound guard refuses, nothing is called.
const off = useTestApp();
const guarded = useTestApp({ oidcIssuer: 'http://127.0.0.1:9/', oidcClientId: 'c', oidcClientSecret: 'never-logged-secret' });

describe('single sign-on: not configured', () => {
  it('is off, the start and the callback answer 409, sign-out still works', async () => {
    expect((await off.as(null).get('/auth/oidc')).json()).toEqual({ enabled: false, displayName: null, passwordSignIn: true });
    expectProblem(await off.as(null).get('/auth/oidc/authorization-url'), 409, 'OIDC_NOT_CONFIGURED');
    expectProblem(await off.as(null).post('/auth/oidc/callback', { transaction: 't', code: 'c', state: 's' }), 409, 'OIDC_NOT_CONFIGURED');
    const user = await off.org();
    const res = await off.as(user).post('/auth/oidc/logout');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ endSessionUrl: null });
    expectProblem(await off.as(user).get('/user'), 401, 'UNAUTHENTICATED');
  });
});

describe('single sign-on: the outbound guard', () => {
  it('refuses a provider on this machine unless OUTBOUND_ALLOWED_HOSTS names it (502), and never logs the secret', async () => {
    expectProblem(await guarded.as(null).get('/auth/oidc/authorization-url'), 502, 'OIDC_PROVIDER_FAILED');
    expect(guarded.logs.some((l) => l.includes('single sign-on: discovery failed'))).toBe(true);
    expect(guarded.logs.some((l) => l.includes('never-logged-secret'))).toBe(false);
  });
});
