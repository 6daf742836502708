import { and, eq, ne, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Queryable } from '../../db/client.js';
import { files, sessions, users } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { hashPassword, verifyPassword } from '../../platform/crypto.js';
import type { FileStore } from '../../platform/files.js';
import { recordFile, type ReceivedFile } from '../files/files.service.js';
import { presentUser } from './users.presenter.js';
import type { UserDto } from './users.schemas.js';

const avatar = alias(files, 'avatar');

/** One user in the User form (with its avatar link), read with a single query. */
export async function loadUser(db: Queryable, userId: number): Promise<UserDto> {
  const [row] = await db
    .select({ user: users, avatarKey: avatar.key })
    .from(users)
    .leftJoin(avatar, eq(avatar.id, users.avatarFileId))
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) throw notFound('user');
  return presentUser(row.user, row.avatarKey);
}

type ProfileField = 'name' | 'birthDate' | 'phoneNumber' | 'jobTitle' | 'messengerLink' | 'codeHostLink';

export async function updateProfile(ctx: Ctx, changes: Partial<Record<ProfileField, unknown>>): Promise<UserDto> {
  const values: Record<string, unknown> = { updatedAt: new Date() };
  for (const [key, value] of Object.entries(changes)) {
    values[key] = key === 'birthDate' && value !== null ? new Date(value as string) : key === 'name' ? String(value).trim() : value;
  }
  await ctx.db.update(users).set(values).where(eq(users.id, ctx.actor.userId));
  return loadUser(ctx.db, ctx.actor.userId);
}

async function dropAvatar(ctx: Ctx, store: FileStore): Promise<void> {
  const [user] = await ctx.db.select({ fileId: users.avatarFileId }).from(users).where(eq(users.id, ctx.actor.userId)).for('update');
  if (user?.fileId) {
    await ctx.db.update(users).set({ avatarFileId: null }).where(eq(users.id, ctx.actor.userId));
    const [old] = await ctx.db.delete(files).where(eq(files.id, user.fileId)).returning({ key: files.key });
    if (old) ctx.afterCommit(() => store.remove(old.key));
  }
}

export async function clearPersonalData(ctx: Ctx, store: FileStore): Promise<UserDto> {
  await dropAvatar(ctx, store);
  await ctx.db
    .update(users)
    .set({ phoneNumber: null, birthDate: null, jobTitle: null, messengerLink: null, codeHostLink: null, updatedAt: new Date() })
    .where(eq(users.id, ctx.actor.userId));
  return loadUser(ctx.db, ctx.actor.userId);
}

export async function changeAvatar(ctx: Ctx, store: FileStore, received: ReceivedFile): Promise<UserDto> {
  await dropAvatar(ctx, store);
  // A user's avatar is not tenant data: users span organizations, so it carries no organization.
  const file = await recordFile(ctx, store, received, { purpose: 'avatar', organizationId: null });
  await ctx.db.update(users).set({ avatarFileId: file.id, updatedAt: new Date() }).where(eq(users.id, ctx.actor.userId));
  return loadUser(ctx.db, ctx.actor.userId);
}

export async function deleteAvatar(ctx: Ctx, store: FileStore): Promise<UserDto> {
  await dropAvatar(ctx, store);
  await ctx.db.update(users).set({ updatedAt: new Date() }).where(eq(users.id, ctx.actor.userId));
  return loadUser(ctx.db, ctx.actor.userId);
}

/** Requires the current password; revokes every other session (a stolen one stops working). */
export async function changePassword(
  ctx: Ctx,
  input: { currentPassword: string; newPassword: string },
  hashCost: number,
): Promise<{ revokedSessions: number }> {
  const [user] = await ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId)).for('update');
  if (!user || !(await verifyPassword(input.currentPassword, user.hash))) {
    throw new AppError('VALIDATION_FAILED', 'the current password is wrong', [{ path: '/currentPassword', message: 'is wrong' }]);
  }
  const hash = await hashPassword(input.newPassword, hashCost);
  await ctx.db.update(users).set({ passwordHash: hash, updatedAt: new Date() }).where(eq(users.id, ctx.actor.userId));
  const keep = ctx.actor.sessionId ?? 0;
  const revoked = await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, ctx.actor.userId), ne(sessions.id, keep), isNull(sessions.revokedAt), sql`${sessions.expiresAt} > now()`))
    .returning({ id: sessions.id });
  return { revokedSessions: revoked.length };
}
