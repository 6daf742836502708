import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import { passwordResetTokens, sessions, users } from '../../../db/schema/index.js';
import { writeForUser } from '../../../platform/context.js';
import { hashPassword, sha256 } from '../../../platform/crypto.js';
import { AppError } from '../../../platform/errors.js';
import { queueEmail, requireEmail, wakeEmail } from '../../email/email.outbox.js';
import { languageOf } from '../../email/email.layout.js';
import { templates } from '../../email/email.templates.js';

/** A reset link works this long, and once. */
export const RESET_TTL_MINUTES = 30;
/** A claim link (an imported member's first password) works this long, and once. */
export const CLAIM_TTL_DAYS = 7;

/** The password hash, hashed again: a token remembers which password it may replace, not the hash itself. */
const fingerprintOf = (passwordHash: string) => sha256(`reset:${passwordHash}`);

const invalid = () => new AppError('RESET_TOKEN_INVALID', 'this reset link is unknown, used, expired or replaced by a later password change; ask for a new one');

/**
 * Emails a reset link to the account with this address, if there is one. The caller answers 202
 * either way, so the answer tells nothing about which addresses have accounts.
 */
export async function requestPasswordReset(app: FastifyInstance, email: string): Promise<void> {
  requireEmail(app.config);
  const address = email.trim().toLowerCase();
  const [user] = await app.database.db
    .select({ id: users.id, name: users.name, email: users.email, language: users.language, passwordHash: users.passwordHash })
    .from(users)
    .where(sql`lower(${users.email}) = ${address}`)
    .limit(1);
  if (!user) return;
  const token = randomBytes(32).toString('base64url');
  const url = `${app.config.publicUrl}/app/reset-password?token=${encodeURIComponent(token)}`;
  const message = templates.passwordReset(languageOf(user.language), { name: user.name, url, minutes: RESET_TTL_MINUTES }, app.config.publicUrl);
  await writeForUser(app, user.id, async (db) => {
    await db.insert(passwordResetTokens).values({
      userId: user.id,
      tokenHash: sha256(token),
      passwordFingerprint: fingerprintOf(user.passwordHash),
      expiresAt: sql`now() + make_interval(mins => ${RESET_TTL_MINUTES})`,
    });
    await queueEmail(app, db, [{ to: user.email, kind: 'password-reset', userId: user.id, message }]);
  });
  wakeEmail(app);
}

/**
 * Sets the password of the link's account and signs out every one of its sessions. The link must
 * be unused, unexpired, and issued for the password the account has now. The new password is
 * hashed before the transaction opens (a slow KDF must not hold a connection).
 */
export async function confirmPasswordReset(app: FastifyInstance, input: { token: string; password: string }): Promise<{ revokedSessions: number }> {
  const hash = sha256(input.token);
  const [found] = await app.database.db
    .select({ userId: passwordResetTokens.userId })
    .from(passwordResetTokens)
    .where(eq(passwordResetTokens.tokenHash, hash))
    .limit(1);
  if (!found) throw invalid();
  const newHash = await hashPassword(input.password, app.config.passwordHashCost);
  const result = await writeForUser(app, found.userId, async (db) => {
    // One statement marks the token used only if it is still good: two confirms of one link, one wins.
    const [token] = await queryRows<{ user_id: number }>(
      db,
      sql`update password_reset_tokens t set used_at = now()
          from users u
          where t.token_hash = ${hash} and t.used_at is null and t.expires_at > now()
            and u.id = t.user_id and t.password_fingerprint = encode(sha256(convert_to('reset:' || u.password_hash, 'UTF8')), 'hex')
          returning t.user_id`,
    );
    if (!token) throw invalid();
    const [user] = await db
      .update(users)
      // The link reached the address: it is proven too (an imported member's first sign-in included).
      .set({ passwordHash: newHash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())`, updatedAt: new Date() })
      .where(eq(users.id, found.userId))
      .returning({ email: users.email, name: users.name, language: users.language });
    // Every other link of the account dies with the old password (their fingerprints no longer match); spent here to keep the table small.
    await db.delete(passwordResetTokens).where(and(eq(passwordResetTokens.userId, found.userId), isNull(passwordResetTokens.usedAt)));
    const revoked = await db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, found.userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date())))
      .returning({ id: sessions.id });
    const message = templates.passwordChanged(languageOf(user!.language), { name: user!.name }, app.config.publicUrl);
    await queueEmail(app, db, [{ to: user!.email, kind: 'password-changed', userId: found.userId, message }]);
    return { revokedSessions: revoked.length };
  });
  wakeEmail(app);
  return result;
}

/**
 * Emails each account made by an organization import (a pending invitation, no password) a link to
 * set its first password: a reset token that lives CLAIM_TTL_DAYS. In the import's transaction, so
 * a failed import sends nothing. Answers whether anything was queued.
 */
export async function issueAccountClaims(app: FastifyInstance, db: Queryable, userIds: number[], organizationId: number): Promise<boolean> {
  if (!app.config.email.smtpUrl || userIds.length === 0) return false;
  const people = await db
    .select({ id: users.id, name: users.name, email: users.email, language: users.language, passwordHash: users.passwordHash })
    .from(users)
    .where(inArray(users.id, userIds));
  const [org] = await queryRows<{ name: string | null }>(db, sql`select name from organizations where id = ${organizationId}`);
  const emails = [];
  for (const person of people) {
    const token = randomBytes(32).toString('base64url');
    await db.insert(passwordResetTokens).values({
      userId: person.id,
      tokenHash: sha256(token),
      passwordFingerprint: fingerprintOf(person.passwordHash),
      expiresAt: sql`now() + make_interval(days => ${CLAIM_TTL_DAYS})`,
    });
    const url = `${app.config.publicUrl}/app/reset-password?token=${encodeURIComponent(token)}&claim=1`;
    const data = { name: person.name, organization: org?.name ?? '', url, days: CLAIM_TTL_DAYS };
    emails.push({ to: person.email, kind: 'account-claim', userId: person.id, organizationId, message: templates.accountClaim(languageOf(person.language), data, app.config.publicUrl) });
  }
  await queueEmail(app, db, emails);
  return emails.length > 0;
}
