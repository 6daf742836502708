import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { spaceGroups } from '../../../db/schema/index.js';
import type { Actor } from '../../../platform/auth.js';
import { notFound } from '../../../platform/errors.js';

/**
 * Space groups are the caller's own sidebar folders (role `self`): every action is allowed on one's
 * own group in the active organization, and anyone else's does not exist (404), so there is no 403.
 * Locks the group row for the rest of the transaction.
 */
export async function authorizeOwnGroup(db: Queryable, actor: Actor, groupId: number): Promise<typeof spaceGroups.$inferSelect> {
  const [group] = await db
    .select()
    .from(spaceGroups)
    .where(and(eq(spaceGroups.id, groupId), eq(spaceGroups.userId, actor.userId), eq(spaceGroups.organizationId, actor.organizationId)))
    .for('update');
  if (!group) throw notFound('space group');
  return group;
}
