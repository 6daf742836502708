import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { projects } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';

// Project rows of the role table: editors shape projects; readers read and keep their own view settings.
const RULES = {
  read: 'reader',
  personalize: 'reader', // favourite, timeline zoom and grouping
  create: 'editor',
  update: 'editor', // name, description, tab flags, position, group, columns
  delete: 'editor',
  restore: 'editor',
  link: 'editor', // show the project in another space (editor in both)
  manageGroups: 'editor', // a space's project groups
} as const satisfies Record<string, SpaceRole>;

export type ProjectAction = keyof typeof RULES;

/**
 * 404 when the caller cannot see the project, 403 when its role is below the action's. A project in
 * the trash exists only for `restore`: every other action, its board and its columns answer 404.
 */
export async function authorizeProject(db: Queryable, actor: Actor, projectId: number, action: ProjectAction): Promise<SpaceRole> {
  let role = await projectRoleOf(db, actor, projectId);
  if (role !== null && action !== 'restore') {
    const [row] = await db
      .select({ deletedAt: projects.deletedAt })
      .from(projects)
      .where(and(eq(projects.id, projectId), eq(projects.organizationId, actor.organizationId)));
    if (!row || row.deletedAt !== null) role = null;
  }
  return requireRole(role, RULES[action], 'project');
}

/** Creating a project, linking one in, or managing project groups is decided on the target space. */
export async function authorizeProjectInSpace(db: Queryable, actor: Actor, spaceId: number, action: ProjectAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}
