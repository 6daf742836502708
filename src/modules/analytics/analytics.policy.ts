import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, readableSpaceIds, requireRole, spaceRoleOf } from '../../platform/access.js';
import { forbidden, notFound } from '../../platform/errors.js';

/**
 * Who may read which report (routes.md): a project's reports need the editor role in it, a space's
 * the admin role, a user's the user itself or an organization admin, the member report an
 * organization admin. Each answers the scope as a condition on `tasks t`: the tasks the report counts,
 * never more than the caller can read.
 */
const orgAdmin = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

/** The projects at home in the space or linked into it, as a subquery of ids. */
export const projectsOfSpaces = (spaceIds: SQL) =>
  sql`(select p.id from projects p where p.space_id = any(${spaceIds}) union select ps.project_id from project_spaces ps where ps.space_id = any(${spaceIds}))`;

const inProjects = (projects: SQL) => sql`t.id in (select ts.task_id from task_stages ts where ts.project_id in ${projects})`;

export async function projectScope(db: Queryable, actor: Actor, projectId: number): Promise<SQL> {
  requireRole(await projectRoleOf(db, actor, projectId), 'editor', 'project');
  return sql`t.id in (select ts.task_id from task_stages ts where ts.project_id = ${projectId})`;
}

export async function spaceScope(db: Queryable, actor: Actor, spaceId: number): Promise<SQL> {
  requireRole(await spaceRoleOf(db, actor, spaceId), 'admin', 'space');
  return inProjects(spaceProjects(spaceId));
}

export const spaceProjects = (spaceId: number) => projectsOfSpaces(sql`array[${spaceId}]::bigint[]`);

/** Tasks of the caller's organization it can read: all for admins, else those of its spaces. */
export async function readableScope(db: Queryable, actor: Actor): Promise<SQL> {
  if (orgAdmin(actor)) return sql`true`;
  const spaces = await readableSpaceIds(db, actor);
  return inProjects(projectsOfSpaces(sql`${`{${spaces.join(',')}}`}::bigint[]`));
}

/** A user's own reports: the user itself or an organization admin; another organization's user is 404. */
export async function authorizeUserReport(db: Queryable, actor: Actor, userId: number): Promise<void> {
  const rows = await queryRows<{ ok: number }>(db, sql`select 1 as ok from organization_members where organization_id = ${actor.organizationId} and user_id = ${userId}`);
  if (rows.length === 0) throw notFound('user');
  if (userId !== actor.userId && !orgAdmin(actor)) throw forbidden('only the user itself or an organization admin reads its reports');
}

export function authorizeMemberReport(actor: Actor): void {
  if (!orgAdmin(actor)) throw forbidden('organization admin role required');
}
