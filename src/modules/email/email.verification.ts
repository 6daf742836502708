import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { emailVerifications, users } from '../../db/schema/index.js';
import { writeForUser } from '../../platform/context.js';
import { sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { languageOf } from './email.layout.js';
import { queueEmail } from './email.outbox.js';
import { templates } from './email.templates.js';
import type { Mailer } from '../auth/auth.hooks.js';

/** A verification link works this long. */
export const VERIFY_TTL_DAYS = 7;

/**
 * Queues the verification email of the user's current address, in the caller's transaction (a
 * sign-up). Only the token's hash is stored. Without email nothing happens: the address stays
 * unverified, which matters only for the notification emails a service without email never sends.
 */
export async function issueEmailVerification(app: Mailer, db: Queryable, userId: number): Promise<void> {
  if (!app.config.email.smtpUrl) return;
  const [user] = await db.select({ email: users.email, name: users.name, language: users.language }).from(users).where(eq(users.id, userId));
  if (!user) return;
  const token = randomBytes(32).toString('base64url');
  await db.insert(emailVerifications).values({
    userId,
    email: user.email,
    tokenHash: sha256(token),
    expiresAt: sql`now() + make_interval(days => ${VERIFY_TTL_DAYS})`,
  });
  const url = `${app.config.publicUrl}/app/verify-email?token=${encodeURIComponent(token)}`;
  const message = templates.verifyEmail(languageOf(user.language), { name: user.name, url, days: VERIFY_TTL_DAYS }, app.config.publicUrl);
  await queueEmail(app, db, [{ to: user.email, kind: 'verify-email', userId, message }]);
}

/** Marks the link's address verified; the link must be unused, unexpired and for the address the user still has. */
export async function confirmEmailVerification(app: FastifyInstance, token: string): Promise<void> {
  const hash = sha256(token);
  const [found] = await app.database.db.select({ userId: emailVerifications.userId }).from(emailVerifications).where(eq(emailVerifications.tokenHash, hash));
  const invalid = () => new AppError('VERIFICATION_TOKEN_INVALID', 'this verification link is unknown, used, expired or for an address the account no longer has');
  if (!found) throw invalid();
  await writeForUser(app, found.userId, async (db) => {
    const [used] = await queryRows<{ user_id: number }>(
      db,
      sql`update email_verifications v set used_at = now() from users u
          where v.token_hash = ${hash} and v.used_at is null and v.expires_at > now() and u.id = v.user_id and lower(u.email) = lower(v.email)
          returning v.user_id`,
    );
    if (!used) throw invalid();
    await db.update(users).set({ emailVerifiedAt: new Date(), updatedAt: new Date() }).where(eq(users.id, found.userId));
  });
}
