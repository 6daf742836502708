import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole } from '../../platform/access.js';

/**
 * routes.md: the personal integration is the caller's own (self); a project's chat is seen by its
 * readers and set up, changed and removed by its editors. Another organization's project, or one
 * the caller cannot see, is a 404.
 */
const PROJECT = { read: 'reader', write: 'editor' } as const;

export async function authorizeProjectChat(db: Queryable, actor: Actor, projectId: number, action: keyof typeof PROJECT): Promise<void> {
  const [project] = await queryRows<{ id: number }>(
    db,
    sql`select id from projects where id = ${projectId} and organization_id = ${actor.organizationId} and deleted_at is null`,
  );
  requireRole(project ? await projectRoleOf(db, actor, projectId) : null, PROJECT[action], 'project');
}
