import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../../test/app.js';
import { signIn, useTestProvider } from './oidc.fixtures.js';

// OIDC_ALLOWED_DOMAINS, OIDC_ONLY, and new users joining one organization with a role from a claim.
const OPERATOR = `operator-${Math.random().toString(36).slice(2, 8)}@ops.test`;
const { idp, overrides } = useTestProvider();
const t = useTestApp(() => ({
  ...overrides(),
  oidcAllowedDomains: ['corp.test'],
  oidcOnly: true,
  operatorEmails: [OPERATOR],
  oidcScopes: 'openid email profile groups',
  oidcRoleClaim: 'groups',
  oidcRoleMapping: { 'wb-admins': 'admin', staff: 'member' },
}));
let organizationId = 0;
// The organization sign-ins join exists only once the app is up: set into its configuration then.
beforeAll(async () => {
  organizationId = (await seedOrganization()).organizationId;
  t.config.oidcOrganizationId = organizationId;
});
const fresh = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** The organization sign-ins join: registered before OIDC_ONLY takes effect (the gate reads the live configuration). */
async function seedOrganization(): Promise<{ organizationId: number }> {
  t.config.oidcOnly = false;
  try {
    return { organizationId: (await t.org({ email: `${fresh('owner')}@corp.test` })).organizationId };
  } finally {
    t.config.oidcOnly = true;
  }
}

describe('single sign-on: restrictions', () => {
  it('under OIDC_ONLY refuses password sign-in and registration to everyone but operators', async () => {
    expect((await t.as(null).get('/auth/oidc')).json()).toEqual({ enabled: true, displayName: 'Test IdP', passwordSignIn: false });
    expectProblem(await t.as(null).post('/auth/register', { email: `${fresh('r')}@corp.test`, password: PASSWORD, name: 'R' }), 403, 'PASSWORD_SIGN_IN_DISABLED');
    // An existing account, right password: refused all the same.
    const sub = fresh('member');
    idp.accounts.set(sub, { email: `${sub}@corp.test`, email_verified: true });
    expect((await signIn(t, idp, sub)).statusCode).toBe(201);
    expectProblem(await t.as(null).post('/auth/login', { email: `${sub}@corp.test`, password: PASSWORD }), 403, 'PASSWORD_SIGN_IN_DISABLED');
    // The operator still gets in with a password (here: the ordinary wrong-password answer, proving the password is checked).
    expectProblem(await t.as(null).post('/auth/login', { email: OPERATOR, password: PASSWORD }), 401, 'INVALID_CREDENTIALS');
  });

  it('creates accounts only for OIDC_ALLOWED_DOMAINS, in the configured organization with the mapped role', async () => {
    const outsider = fresh('outsider');
    idp.accounts.set(outsider, { email: `${outsider}@elsewhere.test`, email_verified: true });
    expectProblem(await signIn(t, idp, outsider), 403, 'OIDC_DOMAIN_NOT_ALLOWED');
    expect(await t.sql(sql`select id from users where email = ${`${outsider}@elsewhere.test`}`)).toEqual([]);

    const admin = fresh('admin');
    idp.accounts.set(admin, { email: `${admin}@corp.test`, email_verified: true, groups: ['staff', 'wb-admins'] });
    const res = await signIn(t, idp, admin);
    expect(res.statusCode).toBe(201);
    expect(res.json().user.activeOrganizationId).toBe(organizationId);
    const role = () => t.sql<{ role: string }>(sql`select role from organization_members where organization_id = ${organizationId} and user_id = ${res.json().user.id}`);
    expect(await role()).toEqual([{ role: 'admin' }]);
    // The provider takes the group away: the next sign-in follows.
    idp.accounts.set(admin, { email: `${admin}@corp.test`, email_verified: true, groups: ['staff'] });
    expect((await signIn(t, idp, admin)).statusCode).toBe(201);
    expect(await role()).toEqual([{ role: 'member' }]);
  });
});
