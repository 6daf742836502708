import { asc, count, eq } from 'drizzle-orm';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Static } from 'typebox';
import type { Queryable } from '../../../db/client.js';
import { passkeys, userTwoFactor, users } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { revokeSessionsOf } from '../sessions/sessions.service.js';
import { storeChallenge, takeChallenge, type RelyingParty } from './passkeys.challenges.js';
import { authorizePasskeyChange, ownPasskey } from './passkeys.policy.js';
import { presentPasskey } from './passkeys.presenter.js';
import type { CreationOptionsSchema } from './passkeys.schemas.js';

// A user may keep a handful (phone, laptop, a security key, a password manager), not thousands.
const MAX_PASSKEYS = 20;

/**
 * The WebAuthn user handle: the user id, as text. A discoverable credential carries it back at
 * sign-in, where it must match the credential's owner.
 */
export const userHandleOf = (userId: number): string => Buffer.from(String(userId)).toString('base64url');

export async function listPasskeys(ctx: Ctx) {
  const rows = await ctx.db.select().from(passkeys).where(eq(passkeys.userId, ctx.actor.userId)).orderBy(asc(passkeys.id));
  return rows.map(presentPasskey);
}

/**
 * Options for navigator.credentials.create(): a discoverable credential (resident key required, so
 * it signs in without an email), user verification preferred, the user's own credentials excluded.
 */
export async function startRegistration(ctx: Ctx, rp: RelyingParty) {
  authorizePasskeyChange(ctx.actor);
  const [user] = await ctx.db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, ctx.actor.userId));
  const existing = await ctx.db.select({ id: passkeys.credentialId, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, ctx.actor.userId));
  if (existing.length >= MAX_PASSKEYS) throw new AppError('VALIDATION_FAILED', `at most ${MAX_PASSKEYS} passkeys per account: remove one first`);
  const options = await (await import('@simplewebauthn/server')).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user!.email,
    userDisplayName: user!.name,
    userID: Buffer.from(String(ctx.actor.userId)),
    attestationType: 'none',
    excludeCredentials: existing,
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  const challengeId = await storeChallenge(ctx.db, 'registration', ctx.actor.userId, options.challenge);
  return { challengeId, options: options as Static<typeof CreationOptionsSchema> };
}

const notVerified = (why: string) => new AppError('PASSKEY_NOT_VERIFIED', `the passkey could not be verified: ${why}`, [{ path: '/response', message: why }]);

/**
 * Verifies the authenticator's answer against the stored challenge (spent whatever the outcome) and
 * keeps the credential. The first second factor of an account (no passkey, no authenticator app yet)
 * signs out the other sessions, as turning two-factor sign-in on does.
 */
export async function registerPasskey(ctx: Ctx, rp: RelyingParty, input: { name: string; challengeId: string; response: unknown }) {
  authorizePasskeyChange(ctx.actor);
  const expectedChallenge = await takeChallenge(ctx.db, input.challengeId, 'registration', ctx.actor.userId);
  let verified;
  try {
    verified = await (await import('@simplewebauthn/server')).verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch (error) {
    // The library's reason names origins and ids, which help whoever set PUBLIC_URL wrong; it also
    // quotes challenges, which go in no answer or log line.
    throw notVerified((error as Error).message.replace(/"[A-Za-z0-9_-]{16,}={0,2}"/g, '"…"'));
  }
  if (!verified.verified) throw notVerified('the attestation does not verify');
  const { credential, credentialBackedUp, credentialDeviceType } = verified.registrationInfo;
  const [taken] = await ctx.db.select({ userId: passkeys.userId }).from(passkeys).where(eq(passkeys.credentialId, credential.id));
  if (taken) throw new AppError('PASSKEY_ALREADY_REGISTERED', 'this passkey is registered already');
  const firstFactor = !(await hasSecondFactor(ctx.db, ctx.actor.userId));
  const [row] = await ctx.db
    .insert(passkeys)
    .values({
      userId: ctx.actor.userId,
      name: input.name.trim(),
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      backedUp: credentialBackedUp,
      deviceType: credentialDeviceType,
    })
    .returning();
  const revokedSessions = firstFactor ? await revokeSessionsOf(ctx.db, ctx.actor.userId, ctx.actor.sessionId) : 0;
  return { passkey: presentPasskey(row!), revokedSessions };
}

async function hasSecondFactor(db: Queryable, userId: number): Promise<boolean> {
  const [[keys], [totp]] = await Promise.all([
    db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)),
    db.select({ enabledAt: userTwoFactor.enabledAt }).from(userTwoFactor).where(eq(userTwoFactor.userId, userId)),
  ]);
  return Number(keys?.n ?? 0) > 0 || Boolean(totp?.enabledAt);
}

/** 404 before 403: what is not the caller's does not exist for it, whatever its credential. */
async function loadOwnPasskey(ctx: Ctx, passkeyId: number) {
  const [row] = await ctx.db.select({ id: passkeys.id }).from(passkeys).where(ownPasskey(ctx.actor, passkeyId)).for('update');
  if (!row) throw notFound('passkey');
  authorizePasskeyChange(ctx.actor);
}

export async function renamePasskey(ctx: Ctx, passkeyId: number, name: string) {
  await loadOwnPasskey(ctx, passkeyId);
  const [row] = await ctx.db.update(passkeys).set({ name: name.trim() }).where(ownPasskey(ctx.actor, passkeyId)).returning();
  return presentPasskey(row!);
}

/**
 * Needs a session, not the password again: removing a passkey cannot lock its owner out (the
 * password, and the authenticator app when on, still sign in), and every session is a full sign-in
 * already (the half-signed-in state is no credential).
 */
export async function removePasskey(ctx: Ctx, passkeyId: number): Promise<void> {
  await loadOwnPasskey(ctx, passkeyId);
  await ctx.db.delete(passkeys).where(ownPasskey(ctx.actor, passkeyId));
}
