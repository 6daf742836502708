import type { Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';

// Project rows of the role table: editors shape projects; readers read and keep their own view settings.
const RULES = {
  read: 'reader',
  personalize: 'reader', // favourite, timeline zoom and grouping
  create: 'editor',
  update: 'editor',
  delete: 'editor',
} as const satisfies Record<string, SpaceRole>;

export type ProjectAction = keyof typeof RULES;

export async function authorizeProject(db: Queryable, actor: Actor, projectId: number, action: ProjectAction): Promise<SpaceRole> {
  return requireRole(await projectRoleOf(db, actor, projectId), RULES[action], 'project');
}

/** Creating a project (or linking one) is decided on the target space. */
export async function authorizeProjectInSpace(db: Queryable, actor: Actor, spaceId: number, action: ProjectAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}
