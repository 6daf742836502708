import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole, spaceRoleOf } from '../../platform/access.js';
import { forbidden, notFound } from '../../platform/errors.js';
import { authorizeProjectInSpace } from '../projects/projects.policy.js';

/**
 * A Trello import creates a project: whoever may create one in the space (editor). A CSV import
 * creates tasks: whoever may create tasks in the project (member), which must be live. A job is
 * read by its creator and by the admins of its space (organization owners and admins included);
 * other members of the space get 403, anyone else 404.
 */
export async function authorizeTrelloImport(db: Queryable, actor: Actor, spaceId: number): Promise<void> {
  await authorizeProjectInSpace(db, actor, spaceId, 'create');
}

export async function authorizeCsvImport(db: Queryable, actor: Actor, projectId: number): Promise<{ spaceId: number; name: string }> {
  const [live] = await queryRows<{ spaceId: number; name: string }>(
    db,
    sql`select space_id as "spaceId", name from projects where id = ${projectId} and organization_id = ${actor.organizationId} and deleted_at is null`,
  );
  requireRole(live ? await projectRoleOf(db, actor, projectId) : null, 'member', 'project');
  return { spaceId: Number(live!.spaceId), name: live!.name };
}

export async function authorizeImportRead(db: Queryable, actor: Actor, job: { spaceId: number | null; creatorId: number | null }): Promise<void> {
  if (job.creatorId === actor.userId) return;
  const role = job.spaceId === null ? null : await spaceRoleOf(db, actor, job.spaceId);
  if (role === null) throw notFound('import');
  if (role !== 'admin') throw forbidden('only the importing user and the space admins may see an import');
}
