import type { FastifyInstance } from 'fastify';
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { passwordResetTokens, users } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { verifyPassword } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { languageOf } from '../email/email.layout.js';
import { queueEmail, wakeEmail } from '../email/email.outbox.js';
import { templates } from '../email/email.templates.js';
import { issueEmailVerification } from '../email/email.verification.js';
import { announceProfileChange } from '../organizations/organizations.service.js';
import type { UserDto } from './users.schemas.js';
import { loadUser } from './users.service.js';

/** The password, checked before the transaction opens (a slow KDF must not hold a connection); answers the hash it matched. */
export async function checkPasswordForEmailChange(ctx: Ctx, password: string): Promise<string> {
  const [user] = await ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  if (!user || !(await verifyPassword(password, user.hash))) {
    throw new AppError('WRONG_PASSWORD', 'the password is wrong', [{ path: '/password', message: 'is wrong' }]);
  }
  return user.hash;
}

/**
 * Moves the account to a new address (409 EMAIL_TAKEN when another account has it). The new address
 * is unverified until its emailed link is followed, so no notification email goes there before; the
 * old address is told of the change (someone with the password may not be the owner). Unused
 * password-reset links, which went to the old address, stop working. Same address: nothing changes.
 */
export async function changeEmail(ctx: Ctx, app: FastifyInstance, input: { email: string; checkedHash: string }): Promise<UserDto> {
  const { db, actor } = ctx;
  const email = input.email.trim().toLowerCase();
  // The row locked and the password compared again: a password changed meanwhile voids the check.
  const [me] = await db.select().from(users).where(eq(users.id, actor.userId)).for('update');
  if (!me || me.passwordHash !== input.checkedHash) throw new AppError('CONFLICT', 'the password was changed meanwhile; try again');
  if (me.email.toLowerCase() === email) return loadUser(db, actor.userId);
  const [taken] = await db.select({ id: users.id }).from(users).where(and(sql`lower(${users.email}) = ${email}`, ne(users.id, actor.userId)));
  if (taken) throw new AppError('EMAIL_TAKEN', 'an account with this email already exists');
  await db.update(users).set({ email, emailVerifiedAt: null, updatedAt: new Date() }).where(eq(users.id, actor.userId));
  await db.delete(passwordResetTokens).where(and(eq(passwordResetTokens.userId, actor.userId), isNull(passwordResetTokens.usedAt)));
  await issueEmailVerification(app, db, actor.userId);
  const note = templates.emailChanged(languageOf(me.language), { name: me.name, newEmail: email }, app.config.publicUrl);
  await queueEmail(app, db, [{ to: me.email, kind: 'email-changed', userId: actor.userId, message: note }]);
  ctx.afterCommit(() => wakeEmail(app));
  await announceProfileChange(ctx);
  return loadUser(db, actor.userId);
}
