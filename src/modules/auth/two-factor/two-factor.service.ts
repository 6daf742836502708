import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { organizations, passkeys, signInChallenges, twoFactorRecoveryCodes, userTwoFactor, users } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { newSecret, sha256, verifyPassword } from '../../../platform/crypto.js';
import { iso } from '../../../platform/http.js';
import type { SecretBox } from '../../../platform/secrets.js';
import type { SignInChallenge } from '../auth.hooks.js';
import { revokeSessionsOf } from '../sessions/sessions.service.js';
import { authorizeRequirementChange } from './two-factor.policy.js';
import { looksLikeTotp, newRecoveryCode, recoveryCodeHash } from './two-factor.codes.js';

export const RECOVERY_CODES = 10;
// Long enough to open the app and type a code, short enough that a stolen password alone goes stale.
const CHALLENGE_TTL_MS = 5 * 60_000;
// Wrong codes one challenge takes before the password must be given again.
const CHALLENGE_FAILURES = 5;
const CHALLENGE_PREFIX = 'wmc_';

// The ciphertext is bound to its user: copied into another user's row, it does not decrypt.
const contextOf = (userId: number) => `totp:${userId}`;

async function enrolmentOf(db: Queryable, userId: number, lock = false) {
  const query = db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function twoFactorStatus(ctx: Ctx) {
  const row = await enrolmentOf(ctx.db, ctx.actor.userId);
  const [left] = await ctx.db
    .select({ n: count() })
    .from(twoFactorRecoveryCodes)
    .where(and(eq(twoFactorRecoveryCodes.userId, ctx.actor.userId), isNull(twoFactorRecoveryCodes.usedAt)));
  const [org] = await ctx.db.select({ required: organizations.twoFactorRequired }).from(organizations).where(eq(organizations.id, ctx.actor.organizationId));
  return {
    enabled: Boolean(row?.enabledAt),
    enabledAt: iso(row?.enabledAt ?? null),
    recoveryCodesLeft: row?.enabledAt ? Number(left?.n ?? 0) : 0,
    requiredByOrganization: Boolean(org?.required),
    enrolmentRequired: Boolean(ctx.actor.twoFactorEnrolmentRequired),
  };
}

/** A new pending secret (replacing an unconfirmed one); two-factor sign-in starts once a code confirms it. */
export async function startEnrolment(ctx: Ctx, secrets: SecretBox, issuer: string) {
  const existing = await enrolmentOf(ctx.db, ctx.actor.userId, true);
  if (existing?.enabledAt) throw new AppError('TWO_FACTOR_ALREADY_ENABLED', 'two-factor sign-in is already on; turn it off first to enrol another device');
  const [user] = await ctx.db.select({ email: users.email }).from(users).where(eq(users.id, ctx.actor.userId));
  const { newTotpSecret, otpauthUri } = await import('./two-factor.totp.js');
  const secret = newTotpSecret();
  const stored = secrets.encrypt(secret, contextOf(ctx.actor.userId));
  await ctx.db
    .insert(userTwoFactor)
    .values({ userId: ctx.actor.userId, secret: stored })
    .onConflictDoUpdate({ target: userTwoFactor.userId, set: { secret: stored, lastStep: null, createdAt: new Date() } });
  return { secret, uri: otpauthUri(secret, user!.email, issuer) };
}

/**
 * The TOTP code's time step must be newer than the last one accepted: the same code (or an older
 * one still inside the window) is refused, even by two requests at once (the update is atomic).
 */
async function acceptTotp(db: Queryable, secrets: SecretBox, row: typeof userTwoFactor.$inferSelect, code: string): Promise<boolean> {
  const { stepOf } = await import('./two-factor.totp.js');
  const step = stepOf(secrets.decrypt(row.secret, contextOf(row.userId)), code.replace(/\s/g, ''));
  if (step === null) return false;
  const taken = await db
    .update(userTwoFactor)
    .set({ lastStep: step })
    .where(and(eq(userTwoFactor.userId, row.userId), sql`(${userTwoFactor.lastStep} is null or ${userTwoFactor.lastStep} < ${step})`))
    .returning({ userId: userTwoFactor.userId });
  return taken.length > 0;
}

/** A TOTP code or an unused recovery code of an enabled second factor; each is good once. */
async function acceptCode(db: Queryable, secrets: SecretBox, userId: number, code: string): Promise<boolean> {
  const row = await enrolmentOf(db, userId);
  if (!row?.enabledAt) return false;
  if (looksLikeTotp(code)) return acceptTotp(db, secrets, row, code);
  const used = await db
    .update(twoFactorRecoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), eq(twoFactorRecoveryCodes.codeHash, recoveryCodeHash(code)), isNull(twoFactorRecoveryCodes.usedAt)))
    .returning({ id: twoFactorRecoveryCodes.id });
  return used.length > 0;
}

const wrongCode = () => new AppError('TWO_FACTOR_CODE_WRONG', 'the code is wrong or was used already', [{ path: '/code', message: 'is wrong or used' }]);

/**
 * The first code turns two-factor sign-in on. The recovery codes are returned once and stored as
 * hashes; every other session is signed out, as after a password change.
 */
export async function confirmEnrolment(ctx: Ctx, secrets: SecretBox, code: string) {
  const row = await enrolmentOf(ctx.db, ctx.actor.userId, true);
  if (!row) throw new AppError('TWO_FACTOR_NOT_ENABLED', 'no enrolment is under way: start one with POST /user/two-factor/enrolment');
  if (row.enabledAt) throw new AppError('TWO_FACTOR_ALREADY_ENABLED', 'two-factor sign-in is already on');
  if (!(await acceptTotp(ctx.db, secrets, row, code))) throw wrongCode();
  await ctx.db.update(userTwoFactor).set({ enabledAt: new Date() }).where(eq(userTwoFactor.userId, ctx.actor.userId));
  const recoveryCodes = await issueRecoveryCodes(ctx.db, ctx.actor.userId);
  const revokedSessions = await revokeSessionsOf(ctx.db, ctx.actor.userId, ctx.actor.sessionId);
  return { recoveryCodes, revokedSessions };
}

/** A new set of recovery codes replaces every earlier one, used or not. */
async function issueRecoveryCodes(db: Queryable, userId: number): Promise<string[]> {
  const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await db.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  await db.insert(twoFactorRecoveryCodes).values(recoveryCodes.map((c) => ({ userId, codeHash: recoveryCodeHash(c) })));
  return recoveryCodes;
}

/**
 * Ten new recovery codes; the old ones stop working. Like turning two-factor off, it takes the
 * password (checked first) and a code: a session left open must not be able to mint a way in.
 */
export async function regenerateRecoveryCodes(ctx: Ctx, secrets: SecretBox, code: string) {
  const row = await enrolmentOf(ctx.db, ctx.actor.userId, true);
  if (!row?.enabledAt) throw new AppError('TWO_FACTOR_NOT_ENABLED', 'two-factor sign-in with an authenticator app is not on');
  if (!(await acceptCode(ctx.db, secrets, ctx.actor.userId, code))) throw wrongCode();
  return { recoveryCodes: await issueRecoveryCodes(ctx.db, ctx.actor.userId) };
}

/** Run before the write: a slow KDF must not hold a transaction (PGlite has one connection). */
export async function checkPassword(ctx: Ctx, password: string): Promise<void> {
  const [user] = await ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  if (!user || !(await verifyPassword(password, user.hash))) {
    throw new AppError('WRONG_PASSWORD', 'the password is wrong', [{ path: '/password', message: 'is wrong' }]);
  }
}

/** Turning it off takes the password (checked first) and a code: a session left open is not enough. */
export async function disableTwoFactor(ctx: Ctx, secrets: SecretBox, code: string): Promise<void> {
  const row = await enrolmentOf(ctx.db, ctx.actor.userId, true);
  if (!row?.enabledAt) throw new AppError('TWO_FACTOR_NOT_ENABLED', 'two-factor sign-in is not on');
  if (!(await acceptCode(ctx.db, secrets, ctx.actor.userId, code))) throw wrongCode();
  await removeTwoFactor(ctx.db, ctx.actor.userId);
}

async function removeTwoFactor(db: Queryable, userId: number): Promise<void> {
  await db.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  await db.delete(signInChallenges).where(eq(signInChallenges.userId, userId));
  await db.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId));
}

/**
 * signInHooks.secondFactor: a challenge for a user with a second factor, else null. A passkey is one:
 * once a user has one, a password alone no longer signs them in (it would make the organization's
 * requirement, which a passkey satisfies, an empty word).
 */
export async function challengeFor(db: Queryable, userId: number, client: { ip: string | null; userAgent: string | null }): Promise<SignInChallenge | null> {
  const row = await enrolmentOf(db, userId);
  const [key] = await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1);
  const methods: SignInChallenge['methods'] = [...(row?.enabledAt ? (['totp'] as const) : []), ...(key ? (['passkey'] as const) : [])];
  if (methods.length === 0) return null;
  const challenge = newSecret(CHALLENGE_PREFIX);
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
  await db.delete(signInChallenges).where(and(eq(signInChallenges.userId, userId), sql`${signInChallenges.expiresAt} <= now()`));
  await db.insert(signInChallenges).values({ userId, tokenHash: sha256(challenge), ip: client.ip, userAgent: client.userAgent?.slice(0, 500) ?? null, expiresAt });
  return { twoFactorRequired: true, challenge, expiresAt: iso(expiresAt)!, methods };
}

const challengeExpired = () => new AppError('SIGN_IN_CHALLENGE_EXPIRED', 'the sign-in expired or was finished already: sign in with the password again');

/** The live challenge and its user's email (the brute-force key of the account). */
export async function openChallenge(db: Queryable, challenge: string) {
  const [row] = await db
    .select({ id: signInChallenges.id, userId: signInChallenges.userId, email: users.email, activeOrganizationId: users.activeOrganizationId })
    .from(signInChallenges)
    .innerJoin(users, eq(users.id, signInChallenges.userId))
    .where(and(eq(signInChallenges.tokenHash, sha256(challenge)), sql`${signInChallenges.expiresAt} > now()`));
  if (!row) throw challengeExpired();
  return row;
}

/** A wrong code counts against the challenge; the last allowed one ends it. */
export async function failChallenge(db: Queryable, challengeId: number): Promise<void> {
  const [row] = await db
    .update(signInChallenges)
    .set({ failures: sql`${signInChallenges.failures} + 1` })
    .where(eq(signInChallenges.id, challengeId))
    .returning({ failures: signInChallenges.failures });
  if (row && row.failures >= CHALLENGE_FAILURES) await db.delete(signInChallenges).where(eq(signInChallenges.id, challengeId));
}

/** Inside the sign-in's transaction: the code is spent and the challenge with it (single use). */
export async function answerChallenge(tx: Queryable, secrets: SecretBox, challenge: { id: number; userId: number }, code: string): Promise<boolean> {
  if (!(await acceptCode(tx, secrets, challenge.userId, code))) return false;
  return endChallenge(tx, challenge.id);
}

/** Spends the challenge of a sign-in whose second factor was accepted; throws if another request spent it first. */
export async function endChallenge(tx: Queryable, challengeId: number): Promise<true> {
  const ended = await tx.delete(signInChallenges).where(eq(signInChallenges.id, challengeId)).returning({ id: signInChallenges.id });
  if (ended.length === 0) throw challengeExpired();
  return true;
}

export async function readRequirement(ctx: Ctx) {
  const [org] = await ctx.db.select({ required: organizations.twoFactorRequired }).from(organizations).where(eq(organizations.id, ctx.actor.organizationId));
  return { twoFactorRequired: Boolean(org?.required) };
}

/** Every member's cached credential is dropped by the organization's change: the rule holds at once. */
export async function setRequirement(ctx: Ctx, required: boolean) {
  authorizeRequirementChange(ctx.actor);
  await ctx.db.update(organizations).set({ twoFactorRequired: required, updatedAt: new Date() }).where(eq(organizations.id, ctx.actor.organizationId));
  return { twoFactorRequired: required };
}

/**
 * `create-admin --reset-2fa`: the account signs in with its password alone again (its passkeys, a
 * second factor too, go as well: the one who lost the app may have lost the phone); its sessions end.
 */
export async function resetTwoFactor(db: Queryable, userId: number): Promise<{ hadTwoFactor: boolean; revokedSessions: number }> {
  const row = await enrolmentOf(db, userId, true);
  await removeTwoFactor(db, userId);
  const keys = await db.delete(passkeys).where(eq(passkeys.userId, userId)).returning({ id: passkeys.id });
  return { hadTwoFactor: Boolean(row?.enabledAt) || keys.length > 0, revokedSessions: await revokeSessionsOf(db, userId, null) };
}
