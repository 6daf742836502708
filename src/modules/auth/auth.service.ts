import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../../db/client.js';
import { apiTokens, organizationMembers, sessions, users } from '../../db/schema/index.js';
import { withTransaction } from '../../db/tx.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { API_TOKEN_PREFIX, SESSION_PREFIX, hashPassword, newSecret, sha256, verifyPassword } from '../../platform/crypto.js';
import { iso } from '../../platform/http.js';
import type { SignInAttempts } from '../../platform/brute-force.js';
import { createOrganization, loadOrganization, type Licensing } from '../organizations/organizations.service.js';
import { loadUser } from '../users/users.service.js';
import { joinHooks, signInHooks, type Mailer, type SignInChallenge } from './auth.hooks.js';

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export interface AuthSettings extends Licensing {
  sessionTtlDays: number;
  passwordHashCost: number;
  signupMode: 'open' | 'invite-only' | 'closed';
  /** The app whose email a sign-up's verification link goes out with (password registration). */
  mailer?: Mailer;
}

export async function openSession(db: Queryable, userId: number, client: ClientInfo, ttlDays: number): Promise<string> {
  const secret = newSecret(SESSION_PREFIX);
  await db.insert(sessions).values({
    userId,
    tokenHash: sha256(secret),
    ip: client.ip,
    userAgent: client.userAgent?.slice(0, 500) ?? null,
    expiresAt: new Date(Date.now() + ttlDays * 86_400_000),
  });
  return secret;
}

const emailTaken = () => new AppError('EMAIL_TAKEN', 'an account with this email already exists');

/**
 * Creates the user and either its first organization (the user its owner) or, with an invite
 * token, membership of the link's organization and space.
 */
export async function register(
  transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>,
  input: { email: string; password: string; name: string; inviteToken?: string; referralCode?: string },
  client: ClientInfo,
  settings: AuthSettings,
) {
  // Checked before anything is read or hashed: a closed service tells nothing about its accounts.
  if (settings.signupMode === 'closed') throw new AppError('SIGNUP_CLOSED', 'registration is closed on this service; ask an administrator for an account');
  if (settings.signupMode === 'invite-only' && !input.inviteToken) {
    throw new AppError('SIGNUP_CLOSED', 'registration needs an invite link on this service (inviteToken)');
  }
  const email = input.email.trim().toLowerCase();
  // Hash before the transaction: a slow KDF must not hold a connection or a lock.
  const passwordHash = await hashPassword(input.password, settings.passwordHashCost);
  return transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
    if (existing) throw emailTaken();
    const [user] = await tx.insert(users).values({ email, passwordHash, name: input.name.trim() }).returning({ id: users.id });
    const userId = user!.id;
    let organizationId: number;
    if (input.inviteToken) {
      const join = joinHooks.joinByInvite;
      if (!join) throw new AppError('NOT_FOUND', 'invite link not found');
      organizationId = (await join(tx, userId, input.inviteToken)).organizationId;
    } else {
      organizationId = await createOrganization(tx, userId, `${input.name.trim()}'s organization`, settings);
    }
    if (input.referralCode && joinHooks.attributeReferral) {
      await joinHooks.attributeReferral(tx, userId, input.inviteToken ? null : organizationId, input.referralCode);
    }
    await tx.update(users).set({ activeOrganizationId: organizationId }).where(eq(users.id, userId));
    if (joinHooks.registered) await joinHooks.registered(tx, userId, settings.mailer);
    const session = await openSession(tx, userId, client, settings.sessionTtlDays);
    return { session, user: await loadUser(tx, userId), organization: await loadOrganization(tx, organizationId, userId) };
  });
}

// One per cost, made once: the hash an unknown email's password is checked against.
const standIns = new Map<number, Promise<string>>();
/** A password hash of the given cost that matches no password anyone sends. */
export function standInHash(cost: number): Promise<string> {
  let hash = standIns.get(cost);
  if (!hash) standIns.set(cost, (hash = hashPassword(newSecret(''), cost)));
  return hash;
}

/**
 * Same answer for an unknown email and a wrong password, in about the same time (an unknown email
 * is checked against a stand-in hash), so accounts cannot be probed. Failed tries make the next
 * ones from the same address wait (see platform/brute-force.ts). A user with two-factor sign-in
 * gets a challenge instead of a session: the code is sent with it to the second step.
 */
export async function login(
  db: Db,
  input: { email: string; password: string },
  client: ClientInfo,
  settings: AuthSettings,
  attempts: SignInAttempts,
): Promise<Awaited<ReturnType<typeof completeSignIn>> | SignInChallenge> {
  const email = input.email.trim().toLowerCase();
  attempts.check(email);
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = ${email}`).limit(1);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await standInHash(settings.passwordHashCost)));
  if (!user || !ok) {
    await attempts.failed(email);
    throw new AppError('INVALID_CREDENTIALS', 'the email or password is wrong');
  }
  const challenge = await signInHooks.secondFactor?.(db, user.id, client);
  if (challenge) return challenge;
  return withTransaction(db, ({ tx }) => completeSignIn(tx, user, client, settings));
}

/** The end of every sign-in: an active membership is required, then the session opens. */
export async function completeSignIn(tx: Queryable, user: { id: number; activeOrganizationId: number | null }, client: ClientInfo, settings: AuthSettings) {
  const memberships = await tx
    .select({ organizationId: organizationMembers.organizationId })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.userId, user.id), eq(organizationMembers.active, true), isNull(organizationMembers.deletedAt)))
    .orderBy(asc(organizationMembers.id));
  if (memberships.length === 0) throw new AppError('ACCOUNT_DEACTIVATED', 'the account has no active organization membership');
  // Keep the active organization if the user may still act in it; otherwise fall back to another.
  if (!memberships.some((m) => m.organizationId === user.activeOrganizationId)) {
    await tx.update(users).set({ activeOrganizationId: memberships[0]!.organizationId }).where(eq(users.id, user.id));
  }
  const session = await openSession(tx, user.id, client, settings.sessionTtlDays);
  return { session, user: await loadUser(tx, user.id) };
}

/** Revokes the credential the request was made with. */
export async function logout(ctx: Ctx): Promise<void> {
  if (ctx.actor.sessionId) await ctx.db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, ctx.actor.sessionId));
  if (ctx.actor.tokenId) await ctx.db.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, ctx.actor.tokenId));
}

type TokenRow = typeof apiTokens.$inferSelect;
const presentToken = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  organizationId: t.organizationId,
  lastUsedAt: iso(t.lastUsedAt),
  expiresAt: iso(t.expiresAt),
  createdAt: iso(t.createdAt)!,
  scope: t.scope === 'read' ? ('read' as const) : ('read-write' as const),
});

/** The token acts in the organization active at creation; its secret is returned once and stored hashed. */
export async function createApiToken(ctx: Ctx, input: { name: string; expiresAt?: string | null; scope?: 'read' | 'read-write' }) {
  if (input.expiresAt && new Date(input.expiresAt).getTime() <= Date.now()) {
    throw new AppError('VALIDATION_FAILED', 'expiresAt must be in the future', [{ path: '/expiresAt', message: 'must be in the future' }]);
  }
  const token = newSecret(API_TOKEN_PREFIX);
  const [row] = await ctx.db
    .insert(apiTokens)
    .values({
      userId: ctx.actor.userId,
      organizationId: ctx.actor.organizationId,
      name: input.name.trim(),
      prefix: token.slice(0, 10),
      tokenHash: sha256(token),
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      scope: input.scope ?? 'read-write',
    })
    .returning();
  return { ...presentToken(row!), token };
}

export async function listApiTokens(ctx: Ctx) {
  const rows = await ctx.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.userId, ctx.actor.userId), isNull(apiTokens.revokedAt)))
    .orderBy(asc(apiTokens.id));
  return rows.filter((t) => !t.expiresAt || t.expiresAt.getTime() > Date.now()).map(presentToken);
}

export async function revokeApiToken(ctx: Ctx, tokenId: number): Promise<void> {
  const revoked = await ctx.db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, ctx.actor.userId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  if (revoked.length === 0) throw notFound('API token');
}
