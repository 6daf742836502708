import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { notificationEmailSettings } from '../../db/schema/email.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { NotificationEmailDto, NotificationEmailInput } from './email.schemas.js';

const DEFAULT: NotificationEmailDto = { mode: 'daily', hour: 8, timeZone: 'UTC', mentionsImmediately: false };
const ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

export async function loadNotificationEmail(db: Queryable, userId: number): Promise<NotificationEmailDto> {
  const [row] = await db.select().from(notificationEmailSettings).where(eq(notificationEmailSettings.userId, userId));
  return row ? { mode: row.mode, hour: row.hour, timeZone: row.timeZone, mentionsImmediately: row.mentionsImmediately } : DEFAULT;
}

/** The caller's own setting: nobody else's is reachable, so there is no other policy than being signed in. */
export async function setNotificationEmail(ctx: Ctx, input: NotificationEmailInput): Promise<NotificationEmailDto> {
  if (!ZONES.has(input.timeZone)) {
    throw new AppError('VALIDATION_FAILED', 'timeZone must be an IANA time zone', [{ path: '/timeZone', message: 'is not a known time zone' }]);
  }
  await ctx.db
    .insert(notificationEmailSettings)
    .values({ userId: ctx.actor.userId, ...input })
    .onConflictDoUpdate({ target: notificationEmailSettings.userId, set: { ...input, updatedAt: sql`now()` } });
  return loadNotificationEmail(ctx.db, ctx.actor.userId);
}

/** One-click unsubscribe: notification emails off for this user only. */
export async function turnNotificationEmailOff(db: Queryable, userId: number): Promise<void> {
  await db
    .insert(notificationEmailSettings)
    .values({ userId, mode: 'off' })
    .onConflictDoUpdate({ target: notificationEmailSettings.userId, set: { mode: 'off', updatedAt: sql`now()` } });
}
