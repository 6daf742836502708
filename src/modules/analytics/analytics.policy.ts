import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, readableSpaceIds, requireRole, spaceRoleOf } from '../../platform/access.js';
import { forbidden, notFound } from '../../platform/errors.js';

/**
 * Who may read which report (routes.md): a project's reports need the editor role in it, a space's
 * the admin role, a user's the user itself or an organization admin, the member report an
 * organization admin. Each answers the scope: the projects whose tasks the report counts (a task
 * in several of them once), narrowed to one assignee's tasks when `assignee` is not 0 — never more
 * than the caller can read.
 */
export interface Scope {
  organizationId: number;
  projects: number[];
  /** 0: every task of the projects; else only the tasks assigned to this user. */
  assignee: number;
}

const orgAdmin = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

/** The projects at home in the spaces or linked into them. */
async function projectsOfSpaces(db: Queryable, organizationId: number, spaceIds: number[]): Promise<number[]> {
  const spaces = sql`${`{${spaceIds.join(',')}}`}::bigint[]`;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select p.id from projects p where p.organization_id = ${organizationId} and p.space_id = any(${spaces})
        union select ps.project_id from project_spaces ps where ps.organization_id = ${organizationId} and ps.space_id = any(${spaces})
        order by 1`,
  );
  return rows.map((r) => Number(r.id));
}

export async function projectScope(db: Queryable, actor: Actor, projectId: number): Promise<Scope> {
  requireRole(await projectRoleOf(db, actor, projectId), 'editor', 'project');
  return { organizationId: actor.organizationId, projects: [projectId], assignee: 0 };
}

export async function spaceScope(db: Queryable, actor: Actor, spaceId: number): Promise<Scope> {
  requireRole(await spaceRoleOf(db, actor, spaceId), 'admin', 'space');
  return { organizationId: actor.organizationId, projects: await projectsOfSpaces(db, actor.organizationId, [spaceId]), assignee: 0 };
}

/** The projects of the caller's organization whose tasks it can read: all for admins, else those of its spaces. */
export async function readableScope(db: Queryable, actor: Actor): Promise<Scope> {
  const projects = orgAdmin(actor)
    ? (await queryRows<{ id: number }>(db, sql`select id from projects where organization_id = ${actor.organizationId} order by id`)).map((r) => Number(r.id))
    : await projectsOfSpaces(db, actor.organizationId, await readableSpaceIds(db, actor));
  return { organizationId: actor.organizationId, projects, assignee: 0 };
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
