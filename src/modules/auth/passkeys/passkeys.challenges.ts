import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { passkeyChallenges } from '../../../db/schema/index.js';
import { AppError } from '../../../platform/errors.js';
import { newSecret, sha256 } from '../../../platform/crypto.js';

// Long enough to find the phone or touch the key, short enough that a challenge copied elsewhere goes stale.
const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_ID_PREFIX = 'wpk_';

export type Purpose = 'registration' | 'sign-in' | 'second-factor';

/** The relying party: its id is PUBLIC_URL's host name, and only PUBLIC_URL's origin may answer. */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, name: 'Workboard', origin: url.origin };
}

/** Stores the WebAuthn challenge under a new random id (only its hash is kept) and answers the id. */
export async function storeChallenge(db: Queryable, purpose: Purpose, userId: number | null, challenge: string): Promise<string> {
  const challengeId = newSecret(CHALLENGE_ID_PREFIX);
  // Whoever asks for a challenge sweeps the stale ones: no job needed, and the table stays small.
  await db.delete(passkeyChallenges).where(sql`${passkeyChallenges.expiresAt} <= now()`);
  await db.insert(passkeyChallenges).values({ tokenHash: sha256(challengeId), purpose, userId, challenge, expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS) });
  return challengeId;
}

export const challengeExpired = () => new AppError('PASSKEY_CHALLENGE_EXPIRED', 'the passkey challenge expired or was used already: start again');

/**
 * Takes the challenge out of the store (single use: a wrong answer spends it too). It must be live, of
 * this purpose and, when `userId` is given, that user's.
 */
export async function takeChallenge(db: Queryable, challengeId: string, purpose: Purpose, userId: number | null): Promise<string> {
  const [row] = await db
    .delete(passkeyChallenges)
    .where(
      and(
        eq(passkeyChallenges.tokenHash, sha256(challengeId)),
        eq(passkeyChallenges.purpose, purpose),
        // Another user's id spends nothing: it is not theirs to spend.
        userId === null ? undefined : eq(passkeyChallenges.userId, userId),
      ),
    )
    .returning();
  if (!row || row.expiresAt.getTime() <= Date.now()) throw challengeExpired();
  return row.challenge;
}
