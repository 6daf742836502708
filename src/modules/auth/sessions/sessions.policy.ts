import { and, eq, isNull, sql } from 'drizzle-orm';
import { sessions } from '../../../db/schema/index.js';
import type { Actor } from '../../../platform/auth.js';

/**
 * A session is its user's alone: whatever their organization role, nobody else lists or revokes
 * it, and another user's session id answers 404 like one that never existed. Expired and revoked
 * sessions are gone for everyone.
 */
export const ownLiveSessions = (actor: Actor) =>
  and(eq(sessions.userId, actor.userId), isNull(sessions.revokedAt), sql`${sessions.expiresAt} > now()`);
