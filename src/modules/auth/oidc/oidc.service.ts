import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Config } from '../../../config.js';
import type { Db, Queryable } from '../../../db/client.js';
import { oidcIdentities, organizationMembers, organizations, users } from '../../../db/schema/index.js';
import { withTransaction } from '../../../db/tx.js';
import type { Ctx } from '../../../platform/context.js';
import { hashPassword, newSecret } from '../../../platform/crypto.js';
import { AppError } from '../../../platform/errors.js';
import { iso } from '../../../platform/http.js';
import { createOrganization } from '../../organizations/organizations.service.js';
import { loadUser } from '../../users/users.service.js';
import { logout, openSession, type AuthSettings, type ClientInfo } from '../auth.service.js';
import type { Claims, OidcClient } from './oidc.client.js';
import { assertMayCreateAccount, mappedRoleOf, requireOidc, verifiedEmailOf } from './oidc.policy.js';
import { newTransaction, openTransaction } from './oidc.transaction.js';

/**
 * Signing in through the identity provider. Provider calls never run inside a database
 * transaction: the code is redeemed and the ID token validated first, then one short transaction
 * finds, links or creates the account and opens the session.
 */

export interface OidcDeps {
  config: Config;
  db: Db;
  client: OidcClient;
  auth: AuthSettings;
}

export async function startSignIn(deps: OidcDeps): Promise<{ url: string; transaction: string; expiresAt: string }> {
  const { clientSecret } = requireOidc(deps.config);
  const { checks, sealed, expiresAt } = newTransaction(clientSecret);
  return { url: await deps.client.authorizationUrl(checks), transaction: sealed, expiresAt: iso(expiresAt)! };
}

export interface CallbackInput {
  transaction: string;
  code: string;
  state: string;
  iss?: string;
}

export async function completeSignIn(deps: OidcDeps, input: CallbackInput, clientInfo: ClientInfo) {
  const { clientSecret } = requireOidc(deps.config);
  const checks = openTransaction(clientSecret, input.transaction);
  if (!checks) throw new AppError('OIDC_STATE_INVALID', 'the sign-in is unknown, altered or older than 10 minutes: start it again');
  const params: Record<string, string> = { code: input.code, state: input.state, ...(input.iss ? { iss: input.iss } : {}) };
  const claims = await deps.client.redeem(params, checks, ['email', 'email_verified', ...(deps.config.oidcRoleClaim ? [deps.config.oidcRoleClaim] : [])]);
  return withTransaction(deps.db, async ({ tx }) => {
    const userId = await accountFor(tx, deps, claims);
    const organizationId = await activeOrganizationOf(tx, userId);
    await tx.update(users).set({ activeOrganizationId: organizationId }).where(eq(users.id, userId));
    const session = await openSession(tx, userId, clientInfo, deps.auth.sessionTtlDays);
    return { session, user: await loadUser(tx, userId) };
  });
}

/** The subject's account: linked before, linked now by a verified email, or created. */
async function accountFor(tx: Queryable, deps: OidcDeps, claims: Claims): Promise<number> {
  // The token's iss, validated against the discovered issuer: the form the provider itself uses.
  const issuer = String(claims.iss);
  const [linked] = await tx
    .update(oidcIdentities)
    .set({ lastSignInAt: new Date() })
    .where(and(eq(oidcIdentities.issuer, issuer), eq(oidcIdentities.subject, claims.sub)))
    .returning({ userId: oidcIdentities.userId });
  if (linked) {
    await applyMappedRole(tx, deps.config, linked.userId, claims);
    return linked.userId;
  }
  const email = verifiedEmailOf(claims);
  const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`).limit(1);
  const userId = existing?.id ?? (await createAccount(tx, deps, email, claims));
  await tx.insert(oidcIdentities).values({ userId, issuer, subject: claims.sub });
  if (existing) await applyMappedRole(tx, deps.config, userId, claims);
  return userId;
}

async function createAccount(tx: Queryable, deps: OidcDeps, email: string, claims: Claims): Promise<number> {
  assertMayCreateAccount(deps.config, email);
  const name = (typeof claims.name === 'string' && claims.name.trim().slice(0, 500)) || email.slice(0, email.indexOf('@'));
  // A hash of a secret nobody holds: the account has no usable password until one is set.
  const passwordHash = await hashPassword(newSecret(''), deps.auth.passwordHashCost);
  const [user] = await tx.insert(users).values({ email, passwordHash, name }).returning({ id: users.id });
  const userId = user!.id;
  const joinId = deps.config.oidcOrganizationId;
  if (joinId === null) {
    await createOrganization(tx, userId, `${name}'s organization`, deps.auth);
  } else {
    const [org] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, joinId));
    if (!org) throw new AppError('OIDC_NOT_CONFIGURED', 'OIDC_ORGANIZATION_ID names no organization of this service');
    await tx.insert(organizationMembers).values({ organizationId: joinId, userId, role: mappedRoleOf(deps.config, claims) ?? 'member' });
  }
  return userId;
}

/** OIDC_ROLE_CLAIM keeps a member's role in OIDC_ORGANIZATION_ID as the provider says; owners are left alone. */
async function applyMappedRole(tx: Queryable, config: Config, userId: number, claims: Claims): Promise<void> {
  const role = mappedRoleOf(config, claims);
  if (!role || config.oidcOrganizationId === null) return;
  await tx
    .update(organizationMembers)
    .set({ role })
    .where(and(eq(organizationMembers.organizationId, config.oidcOrganizationId), eq(organizationMembers.userId, userId), sql`${organizationMembers.role} <> 'owner'`));
}

/** Where the session acts: the active organization while it is still a live membership, else the first one. */
async function activeOrganizationOf(tx: Queryable, userId: number): Promise<number> {
  const [user] = await tx.select({ active: users.activeOrganizationId }).from(users).where(eq(users.id, userId));
  const memberships = await tx
    .select({ organizationId: organizationMembers.organizationId })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.userId, userId), eq(organizationMembers.active, true), isNull(organizationMembers.deletedAt)))
    .orderBy(asc(organizationMembers.id));
  if (memberships.length === 0) throw new AppError('ACCOUNT_DEACTIVATED', 'the account has no active organization membership');
  return memberships.find((m) => m.organizationId === user?.active)?.organizationId ?? memberships[0]!.organizationId;
}

/**
 * Ends the session here (its own transaction), then, outside it, asks for the provider's
 * end-session URL: the browser goes there next, where the provider offers one.
 */
export async function signOut(write: (fn: (ctx: Ctx) => Promise<void>) => Promise<void>, client: OidcClient | null): Promise<{ endSessionUrl: string | null }> {
  await write((ctx) => logout(ctx));
  return { endSessionUrl: client ? await client.endSessionUrl() : null };
}
