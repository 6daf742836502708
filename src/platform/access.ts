import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';
import type { SpaceRole } from '../db/schema/spaces.js';
import type { Actor } from './auth.js';
import { forbidden, notFound } from './errors.js';

export type { SpaceRole };

const RANK: Record<SpaceRole, number> = { reader: 1, member: 2, editor: 3, admin: 4 };
const BY_RANK: Record<number, SpaceRole> = { 1: 'reader', 2: 'member', 3: 'editor', 4: 'admin' };

export const atLeast = (role: SpaceRole | null, least: SpaceRole): boolean => role !== null && RANK[role] >= RANK[least];

/** Organization owners and admins act as space admins everywhere (conventions.md). */
const orgWide = (actor: Actor): boolean => actor.orgRole === 'owner' || actor.orgRole === 'admin';

// SQL fragment: the numeric rank of a space_members.role column.
const rankOf = (column: ReturnType<typeof sql>) =>
  sql`case ${column} when 'admin' then 4 when 'editor' then 3 when 'member' then 2 when 'reader' then 1 else 0 end`;

/** The caller's role in a space of its organization, or null when it may not see the space. */
export async function spaceRoleOf(db: Queryable, actor: Actor, spaceId: number): Promise<SpaceRole | null> {
  const rows = await queryRows<{ role: SpaceRole | null }>(
    db,
    sql`select sm.role from spaces s
        left join space_members sm on sm.space_id = s.id and sm.user_id = ${actor.userId}
        where s.id = ${spaceId} and s.organization_id = ${actor.organizationId}`,
    { prepare: 'space-role' },
  );
  if (rows.length === 0) return null;
  return orgWide(actor) ? 'admin' : (rows[0]!.role ?? null);
}

/**
 * SQL: the caller's best space-role rank (1 reader … 4 admin, null or 0 = none) over the spaces
 * project `p` lives in (its home space and spaces it is linked into), for statements that load a
 * resource and authorize it at once. Read it back with roleOfRank.
 */
export const projectRankSql = (actor: Actor, p: string = 'p') => {
  const t = sql.raw(p);
  return sql`(select max(${rankOf(sql`sm.role`)}) from space_members sm
              where sm.user_id = ${actor.userId}
                and (sm.space_id = ${t}.space_id or sm.space_id in (select ps.space_id from project_spaces ps where ps.project_id = ${t}.id)))`;
};

/** The role a rank of projectRankSql stands for, on a resource the caller's organization holds. */
export function roleOfRank(actor: Actor, rank: number | string | null): SpaceRole | null {
  if (orgWide(actor)) return 'admin';
  const n = Number(rank ?? 0);
  return n > 0 ? BY_RANK[n]! : null;
}

/**
 * The best role over the spaces a project lives in (its home space and spaces it is linked into).
 * Null when the project is not in the caller's organization or the caller is in none of them.
 */
export async function projectRoleOf(db: Queryable, actor: Actor, projectId: number): Promise<SpaceRole | null> {
  const rows = await queryRows<{ rank: number | null }>(
    db,
    sql`select ${projectRankSql(actor)} as rank from projects p where p.id = ${projectId} and p.organization_id = ${actor.organizationId}`,
    { prepare: 'project-role' },
  );
  return rows.length === 0 ? null : roleOfRank(actor, rows[0]!.rank);
}

/** The best role over every space holding one of the task's projects. */
export async function taskRoleOf(db: Queryable, actor: Actor, taskId: number): Promise<SpaceRole | null> {
  const rows = await queryRows<{ rank: number | null }>(
    db,
    sql`select (select max(${rankOf(sql`sm.role`)}) from space_members sm
                where sm.user_id = ${actor.userId} and sm.space_id in (
                  select p.space_id from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = t.id
                  union
                  select ps.space_id from task_stages ts join project_spaces ps on ps.project_id = ts.project_id where ts.task_id = t.id)) as rank
        from tasks t where t.id = ${taskId} and t.organization_id = ${actor.organizationId}`,
    { prepare: 'task-role' },
  );
  if (rows.length === 0) return null;
  if (orgWide(actor)) return 'admin';
  const rank = Number(rows[0]!.rank ?? 0);
  return rank > 0 ? BY_RANK[rank]! : null;
}

/**
 * 404 when the caller may not see the resource, 403 when it may see it but its role is below
 * `least`; returns the role otherwise. This is the one place where "404 before 403" is decided.
 */
export function requireRole(role: SpaceRole | null, least: SpaceRole, what: string): SpaceRole {
  if (role === null) throw notFound(what);
  if (!atLeast(role, least)) throw forbidden(`space ${least} role required`);
  return role;
}

/** Spaces of the caller's organization that it can read (every one for organization owners and admins). */
export async function readableSpaceIds(db: Queryable, actor: Actor): Promise<number[]> {
  const rows = orgWide(actor)
    ? await queryRows<{ id: number }>(db, sql`select id from spaces where organization_id = ${actor.organizationId}`)
    : await queryRows<{ id: number }>(
        db,
        sql`select space_id as id from space_members where user_id = ${actor.userId} and organization_id = ${actor.organizationId}`,
      );
  return rows.map((r) => Number(r.id));
}
