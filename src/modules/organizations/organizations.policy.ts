import type { Actor, OrgRole } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

// The organization rows of conventions.md's role table: owner > admin > member.
const RULES = {
  read: 'member',
  rename: 'admin',
  changeAvatar: 'admin',
  readCounts: 'admin',
  readActivity: 'admin',
  manageMembers: 'admin',
  setAiEnabled: 'admin',
  transferOwnership: 'owner',
} as const satisfies Record<string, OrgRole>;

export type OrganizationAction = keyof typeof RULES;

const RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };

export function hasOrgRole(actor: Actor, least: OrgRole): boolean {
  return RANK[actor.orgRole] >= RANK[least];
}

/** Throws 403 unless the actor's organization role allows the action. */
export function authorizeOrganization(actor: Actor, action: OrganizationAction): void {
  if (!hasOrgRole(actor, RULES[action])) throw forbidden(`organization ${RULES[action]} role required`);
}
