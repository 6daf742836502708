import type { Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';

// The space rows of conventions.md's role table: which space role each action needs.
const RULES = {
  read: 'reader',
  personalize: 'reader', // own order, favourite, folder
  leave: 'reader',
  update: 'admin', // settings: name, background, icon, archive, intro reglament
  delete: 'admin',
  manageMembers: 'admin',
  manageInviteLink: 'admin',
} as const satisfies Record<string, SpaceRole>;

export type SpaceAction = keyof typeof RULES;

/** 404 if the caller cannot see the space, 403 if its role is below the action's; returns the role. */
export async function authorizeSpace(db: Queryable, actor: Actor, spaceId: number, action: SpaceAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}
