import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole, type SpaceRole } from '../../platform/access.js';

// The project documentation tab in conventions.md's role table: editors write, readers read.
const RULES = {
  read: 'reader',
  write: 'editor', // content, images, files
} as const satisfies Record<string, SpaceRole>;

export type ProjectDocsAction = keyof typeof RULES;

/**
 * 404 when the caller cannot see the project (another organization, none of its spaces, or in the
 * trash), 403 when its role is below the action's. Returns the project's home space, where its
 * documentation files are filed (so the files module lets that space's readers download them).
 */
export async function authorizeProjectDocs(db: Queryable, actor: Actor, projectId: number, action: ProjectDocsAction): Promise<{ spaceId: number }> {
  let role = await projectRoleOf(db, actor, projectId);
  const [project] = await queryRows<{ spaceId: number; deleted: boolean }>(
    db,
    sql`select space_id as "spaceId", deleted_at is not null as deleted from projects
        where id = ${projectId} and organization_id = ${actor.organizationId}`,
  );
  if (!project || project.deleted) role = null;
  requireRole(role, RULES[action], 'project');
  return { spaceId: Number(project!.spaceId) };
}
