import { and, asc, count, desc, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { sessions } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { ownLiveSessions } from './sessions.policy.js';
import { presentSession } from './sessions.presenter.js';

/** Own live sessions, the most recently used first (the one a user looks for is usually recent). */
export async function listSessions(ctx: Ctx, page: { limit: number; offset: number }) {
  const where = ownLiveSessions(ctx.actor);
  const [rows, [total]] = await Promise.all([
    ctx.db.select().from(sessions).where(where).orderBy(desc(sessions.lastUsedAt), asc(sessions.id)).limit(page.limit).offset(page.offset),
    ctx.db.select({ n: count() }).from(sessions).where(where),
  ]);
  return { items: rows.map((s) => presentSession(s, ctx.actor.sessionId)), total: Number(total?.n ?? 0) };
}

/**
 * Revoking the session the request came with is allowed: it is a sign-out. Run inside `write`, so
 * the commit tells every instance that this user's cached credentials are stale.
 */
export async function revokeSession(ctx: Ctx, sessionId: number): Promise<void> {
  const revoked = await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, sessionId), ownLiveSessions(ctx.actor)))
    .returning({ id: sessions.id });
  if (revoked.length === 0) throw notFound('session');
}

/** Every session of the user but `keep` (all of them when null); how many were signed out. */
export async function revokeSessionsOf(db: Queryable, userId: number, keep: number | null): Promise<number> {
  const revoked = await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, userId), keep === null ? undefined : ne(sessions.id, keep), isNull(sessions.revokedAt), sql`${sessions.expiresAt} > now()`))
    .returning({ id: sessions.id });
  return revoked.length;
}

/** Signs out everywhere else. Called with an API token, there is no current session: all go. */
export async function revokeOtherSessions(ctx: Ctx): Promise<{ revokedSessions: number }> {
  return { revokedSessions: await revokeSessionsOf(ctx.db, ctx.actor.userId, ctx.actor.sessionId) };
}
