import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole } from '../../platform/access.js';

/**
 * routes.md "Automation": a project's readers see its rules and their runs; its editors create,
 * change and delete them. Another organization's project, or one the caller cannot see, is a 404.
 */
const RULES = { read: 'reader', write: 'editor' } as const;
export type RuleAction = keyof typeof RULES;

export interface ProjectScope {
  projectId: number;
  spaceId: number;
}

export async function authorizeRules(db: Queryable, actor: Actor, projectId: number, action: RuleAction): Promise<ProjectScope> {
  const [project] = await queryRows<{ spaceId: number }>(
    db,
    sql`select space_id as "spaceId" from projects where id = ${projectId} and organization_id = ${actor.organizationId} and deleted_at is null`,
  );
  requireRole(project ? await projectRoleOf(db, actor, projectId) : null, RULES[action], 'project');
  return { projectId, spaceId: Number(project!.spaceId) };
}
