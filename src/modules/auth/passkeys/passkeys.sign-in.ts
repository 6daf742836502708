import { and, eq, sql } from 'drizzle-orm';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';

// The WebAuthn library (~250 modules, 18 MB) loads with the first passkey request, not at every start (issue 42).
const webauthn = () => import('@simplewebauthn/server');
import type { Static } from 'typebox';
import type { Db, Queryable } from '../../../db/client.js';
import { passkeys, users } from '../../../db/schema/index.js';
import { withTransaction } from '../../../db/tx.js';
import { AppError } from '../../../platform/errors.js';
import type { SignInAttempts } from '../../../platform/brute-force.js';
import { completeSignIn, type AuthSettings, type ClientInfo } from '../auth.service.js';
import { endChallenge, failChallenge, openChallenge } from '../two-factor/two-factor.service.js';
import { storeChallenge, takeChallenge, type RelyingParty } from './passkeys.challenges.js';
import type { AuthenticationResponseBody, RequestOptionsSchema } from './passkeys.schemas.js';
import { userHandleOf } from './passkeys.service.js';

type Assertion = Static<typeof AuthenticationResponseBody>;
type Options = Static<typeof RequestOptionsSchema>;

const refused = () => new AppError('INVALID_CREDENTIALS', 'the passkey was not accepted');

/**
 * Options for a sign-in with a passkey alone: no allowCredentials, so the authenticator offers the
 * discoverable credentials it holds for this site and nobody has to type an email. The passkey is
 * both factors (possession and the PIN or biometric that unlocks it), so user verification is required.
 */
export async function startPasskeySignIn(db: Queryable, rp: RelyingParty) {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required' });
  return { challengeId: await storeChallenge(db, 'sign-in', null, options.challenge), options: options as Options };
}

async function credentialOf(db: Queryable, credentialId: string) {
  const [row] = await db
    .select({ passkey: passkeys, email: users.email, activeOrganizationId: users.activeOrganizationId })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.userId))
    .where(eq(passkeys.credentialId, credentialId));
  return row ?? null;
}

/**
 * Verifies the assertion with the credential's public key and moves its counter on. A counter that
 * does not grow (when either side is not 0) means a cloned authenticator: refused by the library,
 * and the update is conditional too, so two uses of one assertion at once cannot both pass.
 */
async function acceptAssertion(tx: Queryable, rp: RelyingParty, row: typeof passkeys.$inferSelect, expectedChallenge: string, assertion: Assertion, requireUserVerification: boolean): Promise<boolean> {
  let result;
  try {
    result = await (await webauthn()).verifyAuthenticationResponse({
      response: assertion as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: row.credentialId, publicKey: Buffer.from(row.publicKey, 'base64url'), counter: row.counter, transports: row.transports },
      requireUserVerification,
    });
  } catch {
    return false;
  }
  if (!result.verified) return false;
  const { newCounter, credentialBackedUp } = result.authenticationInfo;
  const moved = await tx
    .update(passkeys)
    .set({ counter: newCounter, backedUp: credentialBackedUp, lastUsedAt: new Date() })
    .where(and(eq(passkeys.id, row.id), sql`(${passkeys.counter} < ${newCounter} or (${passkeys.counter} = 0 and ${newCounter} = 0))`))
    .returning({ id: passkeys.id });
  return moved.length > 0;
}

/**
 * A sign-in with a passkey alone. It opens a session like a password and code do (completeSignIn), and
 * never asks for a code: the passkey is the second factor. Failures count against the account (or,
 * for a credential nobody has, against the address) like wrong passwords. `assertMaySignIn` is
 * OIDC_ONLY's rule: with single sign-on the only way in, a passkey must not be a way round the
 * provider (where people are switched off), except for operators, as with passwords.
 */
export async function signInWithPasskey(
  db: Db,
  rp: RelyingParty,
  input: { challengeId: string; response: Assertion },
  client: ClientInfo,
  settings: AuthSettings,
  attempts: SignInAttempts,
  assertMaySignIn: (db: Queryable, email: string) => Promise<void>,
) {
  const expectedChallenge = await takeChallenge(db, input.challengeId, 'sign-in', null);
  const found = await credentialOf(db, input.response.id);
  const account = found?.email ?? `passkey:${input.response.id}`;
  attempts.check(account);
  // A discoverable credential names its user: it must be the one the credential was registered to.
  const owned = found && input.response.response.userHandle === userHandleOf(found.passkey.userId);
  const signedIn = owned
    ? await withTransaction(db, async ({ tx }) => {
        if (!(await acceptAssertion(tx, rp, found.passkey, expectedChallenge, input.response, true))) return null;
        await assertMaySignIn(tx, found.email);
        return completeSignIn(tx, { id: found.passkey.userId, activeOrganizationId: found.activeOrganizationId }, client, settings);
      })
    : null;
  if (!signedIn) {
    await attempts.failed(account);
    throw refused();
  }
  return signedIn;
}

/** Options for the second step of a password sign-in, limited to the user's own passkeys. */
export async function startPasskeySecondFactor(db: Queryable, rp: RelyingParty, challenge: string) {
  const signIn = await openChallenge(db, challenge);
  const own = await db.select({ id: passkeys.credentialId, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, signIn.userId));
  if (own.length === 0) throw new AppError('PASSKEY_NOT_VERIFIED', 'this account has no passkey: answer with a code');
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, allowCredentials: own, userVerification: 'preferred' });
  return { challengeId: await storeChallenge(db, 'second-factor', signIn.userId, options.challenge), options: options as Options };
}

/**
 * The second step of a password sign-in answered with a passkey instead of a code: the password was
 * the first factor, so presence is enough. The sign-in challenge is spent with it; a wrong answer
 * counts against it like a wrong code.
 */
export async function answerWithPasskey(
  db: Db,
  rp: RelyingParty,
  input: { challenge: string; challengeId: string; response: Assertion },
  client: ClientInfo,
  settings: AuthSettings,
  attempts: SignInAttempts,
) {
  const signIn = await openChallenge(db, input.challenge);
  attempts.check(signIn.email);
  const expectedChallenge = await takeChallenge(db, input.challengeId, 'second-factor', signIn.userId);
  const found = await credentialOf(db, input.response.id);
  const signedIn =
    found && found.passkey.userId === signIn.userId
      ? await withTransaction(db, async ({ tx }) =>
          (await acceptAssertion(tx, rp, found.passkey, expectedChallenge, input.response, false)) && (await endChallenge(tx, signIn.id))
            ? completeSignIn(tx, { id: signIn.userId, activeOrganizationId: signIn.activeOrganizationId }, client, settings)
            : null,
        )
      : null;
  if (!signedIn) {
    await failChallenge(db, signIn.id);
    await attempts.failed(signIn.email);
    throw refused();
  }
  return signedIn;
}
