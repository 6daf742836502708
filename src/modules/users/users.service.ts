import { and, eq, ne, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Queryable } from '../../db/client.js';
import { files, sessions, users } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { hashPassword, verifyPassword } from '../../platform/crypto.js';
import type { FileStore } from '../../platform/files.js';
import { recordFile, type ReceivedFile } from '../files/files.service.js';
import { announceProfileChange } from '../organizations/organizations.service.js';
import { messengerConnectedOf } from '../messenger/messenger.presenter.js';
import { presentUser } from './users.presenter.js';
import type { UserDto } from './users.schemas.js';

const avatar = alias(files, 'avatar');

/** One user in the User form (with its avatar link), read with a single query. */
export async function loadUser(db: Queryable, userId: number): Promise<UserDto> {
  const [row] = await db
    .select({ user: users, avatarKey: avatar.key, messengerConnected: messengerConnectedOf(users.id) })
    .from(users)
    .leftJoin(avatar, eq(avatar.id, users.avatarFileId))
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) throw notFound('user');
  return presentUser(row.user, row.avatarKey, row.messengerConnected);
}

export type ProfileField = 'name' | 'birthDate' | 'phoneNumber' | 'jobTitle' | 'messengerLink' | 'codeHostLink' | 'language';

/** Changes one profile property; the field is named by the route, never taken from the body's keys. */
export async function updateProfile(ctx: Ctx, field: ProfileField, value: string | null): Promise<UserDto> {
  const stored = field === 'birthDate' ? (value === null ? null : new Date(value)) : field === 'name' ? String(value).trim() : value;
  await ctx.db
    .update(users)
    .set({ [field]: stored, updatedAt: new Date() })
    .where(eq(users.id, ctx.actor.userId));
  await announceProfileChange(ctx);
  return loadUser(ctx.db, ctx.actor.userId);
}

async function dropAvatar(ctx: Ctx, store: FileStore): Promise<void> {
  const [user] = await ctx.db.select({ fileId: users.avatarFileId }).from(users).where(eq(users.id, ctx.actor.userId)).for('update');
  if (user?.fileId) {
    await ctx.db.update(users).set({ avatarFileId: null }).where(eq(users.id, ctx.actor.userId));
    const [old] = await ctx.db.delete(files).where(eq(files.id, user.fileId)).returning({ key: files.key });
    if (old) await store.removeAfterCommit(ctx, [old.key]);
  }
}

export async function clearPersonalData(ctx: Ctx, store: FileStore): Promise<UserDto> {
  await dropAvatar(ctx, store);
  await ctx.db
    .update(users)
    .set({ phoneNumber: null, birthDate: null, jobTitle: null, messengerLink: null, codeHostLink: null, updatedAt: new Date() })
    .where(eq(users.id, ctx.actor.userId));
  await announceProfileChange(ctx);
  return loadUser(ctx.db, ctx.actor.userId);
}

export async function changeAvatar(ctx: Ctx, store: FileStore, received: ReceivedFile): Promise<UserDto> {
  await dropAvatar(ctx, store);
  // A user's avatar is not tenant data: users span organizations, so it carries no organization.
  const file = await recordFile(ctx, store, received, { purpose: 'avatar', organizationId: null });
  await ctx.db.update(users).set({ avatarFileId: file.id, updatedAt: new Date() }).where(eq(users.id, ctx.actor.userId));
  await announceProfileChange(ctx);
  return loadUser(ctx.db, ctx.actor.userId);
}

export async function deleteAvatar(ctx: Ctx, store: FileStore): Promise<UserDto> {
  await dropAvatar(ctx, store);
  await ctx.db.update(users).set({ updatedAt: new Date() }).where(eq(users.id, ctx.actor.userId));
  await announceProfileChange(ctx);
  return loadUser(ctx.db, ctx.actor.userId);
}

export interface PreparedPasswordChange {
  previousHash: string;
  newHash: string;
}

/**
 * Checks the current password and hashes the new one before any transaction opens: a slow KDF must
 * not hold a connection or a row lock (PGlite has a single connection).
 */
export async function preparePasswordChange(
  ctx: Ctx,
  input: { currentPassword: string; newPassword: string },
  hashCost: number,
): Promise<PreparedPasswordChange> {
  const [user] = await ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  if (!user || !(await verifyPassword(input.currentPassword, user.hash))) {
    throw new AppError('WRONG_PASSWORD', 'the current password is wrong', [{ path: '/currentPassword', message: 'is wrong' }]);
  }
  return { previousHash: user.hash, newHash: await hashPassword(input.newPassword, hashCost) };
}

/** Stores the new password and revokes every other session (a stolen one stops working). */
export async function changePassword(ctx: Ctx, prepared: PreparedPasswordChange): Promise<{ revokedSessions: number }> {
  // Compare-and-set: a concurrent change in between means the checked password is no longer current.
  const updated = await ctx.db
    .update(users)
    .set({ passwordHash: prepared.newHash, updatedAt: new Date() })
    .where(and(eq(users.id, ctx.actor.userId), eq(users.passwordHash, prepared.previousHash)))
    .returning({ id: users.id });
  if (updated.length === 0) throw new AppError('CONFLICT', 'the password was changed meanwhile; try again');
  const keep = ctx.actor.sessionId ?? 0;
  const revoked = await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, ctx.actor.userId), ne(sessions.id, keep), isNull(sessions.revokedAt), sql`${sessions.expiresAt} > now()`))
    .returning({ id: sessions.id });
  return { revokedSessions: revoked.length };
}
