import type { Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';

// The space rows of conventions.md's role table: which space role each action needs.
const RULES = {
  read: 'reader', // the space, its members
  personalize: 'reader', // own order, favourite, folder
  leave: 'reader', // remove oneself
  update: 'admin', // settings: name, background, icon, archive, intro reglament
  delete: 'admin',
  manageMembers: 'admin', // share, remove others, set roles
  manageInviteLink: 'admin',
} as const satisfies Record<string, SpaceRole>;

export type SpaceAction = keyof typeof RULES;

/** 404 if the caller cannot see the space, 403 if its role is below the action's; returns the role. */
export async function authorizeSpace(db: Queryable, actor: Actor, spaceId: number, action: SpaceAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}

/** Removing a member is an admin's act, except leaving: anyone in the space may remove themselves. */
export async function authorizeMemberRemoval(db: Queryable, actor: Actor, spaceId: number, userId: number): Promise<SpaceRole> {
  return authorizeSpace(db, actor, spaceId, userId === actor.userId ? 'leave' : 'manageMembers');
}

/** For the files module: a file stored for a space is readable by whoever can read the space. */
export async function canReadSpace(db: Queryable, actor: Actor, spaceId: number): Promise<boolean> {
  return (await spaceRoleOf(db, actor, spaceId)) !== null;
}
