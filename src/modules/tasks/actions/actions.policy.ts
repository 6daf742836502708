import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { projectRoleOf, readableSpaceIds, requireRole, spaceRoleOf } from '../../../platform/access.js';
import { forbidden, notFound } from '../../../platform/errors.js';
import { authorizeColumn, authorizeTask, authorizeTasks, taskAccessOf, type ColumnAccess, type TaskAccess, type TaskAction } from '../tasks.policy.js';

/**
 * routes.md "Kanban task actions", rows 2, 5–17 and 19, as one table: each action names the task
 * rule of tasks.policy.ts it rests on (S:member* for archiving stays own-or-any there).
 */
const TASK_RULES = {
  duplicate: 'create', // S:member on the source task and on the target column
  needsAttention: 'update', // S:member
  archiveMany: 'archive', // S:member*, per task
  finishColumn: 'move', // S:member on the column's project (the column rule of tasks.policy)
} as const satisfies Record<string, TaskAction>;

export type ActionName = keyof typeof TASK_RULES;

const orgWide = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

export function authorizeTaskAction(db: Queryable, actor: Actor, taskId: number, action: ActionName): Promise<TaskAccess> {
  return authorizeTask(db, actor, taskId, TASK_RULES[action]);
}

/** One query for every task of a bulk action: 404 for any unseen task before any 403. */
export function authorizeTaskActions(db: Queryable, actor: Actor, taskIds: number[], action: ActionName): Promise<TaskAccess[]> {
  return authorizeTasks(db, actor, taskIds, TASK_RULES[action]);
}

/** The column a copy goes into (S:member on its project, as creating a task there). */
export function authorizeTargetColumn(db: Queryable, actor: Actor, stageId: number): Promise<ColumnAccess> {
  return authorizeColumn(db, actor, stageId, 'create');
}

/** A column named under a project in the path: 404 unless it belongs to that project. */
export async function authorizeProjectColumn(db: Queryable, actor: Actor, projectId: number, stageId: number, action: 'finishColumn'): Promise<ColumnAccess> {
  const [inProject] = await queryRows<{ id: number }>(
    db,
    sql`select id from stages where id = ${stageId} and project_id = ${projectId} and organization_id = ${actor.organizationId}`,
  );
  if (!inProject) throw notFound('stage');
  return authorizeColumn(db, actor, stageId, TASK_RULES[action]);
}

/**
 * Duplicating a project: S:editor on the source project and in the target space. Both are looked
 * up before either role is judged, so an unseen one answers 404 before any 403.
 */
export async function authorizeProjectDuplicate(db: Queryable, actor: Actor, projectId: number, targetSpaceId: number | undefined): Promise<{ spaceId: number }> {
  const [source] = await queryRows<{ spaceId: number; deleted: boolean }>(
    db,
    sql`select space_id as "spaceId", deleted_at is not null as deleted from projects where id = ${projectId} and organization_id = ${actor.organizationId}`,
  );
  const sourceRole = source && !source.deleted ? await projectRoleOf(db, actor, projectId) : null;
  if (sourceRole === null) throw notFound('project');
  const spaceId = targetSpaceId ?? Number(source!.spaceId);
  const targetRole = await spaceRoleOf(db, actor, spaceId);
  if (targetRole === null) throw notFound('space');
  requireRole(sourceRole, 'editor', 'project');
  requireRole(targetRole, 'editor', 'space');
  return { spaceId };
}

/** The tasks among `taskIds` the caller can read (S:reader through any live project), one query. */
export async function readableTaskIds(db: Queryable, actor: Actor, taskIds: number[]): Promise<Set<number>> {
  const access = await taskAccessOf(db, actor, taskIds);
  return new Set([...access.values()].filter((t) => t.role !== null).map((t) => t.id));
}

/**
 * SQL condition for set-based lists: task `t` sits in a live project shown (at home or linked) in
 * a space the caller can read. The readable spaces are asked for once per request. Written as two
 * hashed sets rather than a probe of each task's placements: the task's home project (`t.project_id`,
 * the project of its pinned placement, columns.ts keeps them together) among the readable projects,
 * or the task among those linked (not pinned) into one. A search matching most of a 100,000-task
 * organization paid two index probes per match for the probe, and its plan's estimated cost set
 * PostgreSQL compiling it (JIT, 0.4 s).
 */
export async function readableTasksCondition(db: Queryable, actor: Actor): Promise<SQL> {
  const org = actor.organizationId;
  let projects = sql`select p.id from projects p where p.organization_id = ${org} and p.deleted_at is null`;
  if (!orgWide(actor)) {
    const spaceIds = await readableSpaceIds(db, actor);
    if (spaceIds.length === 0) return sql`false`;
    const ids = idArray(spaceIds);
    projects = sql`${projects} and (p.space_id = any(${ids}) or exists (select 1 from project_spaces ps where ps.project_id = p.id and ps.space_id = any(${ids})))`;
  }
  return sql`(t.project_id in (${projects})
    or t.id in (select ts.task_id from task_stages ts where ts.organization_id = ${org} and not ts.pinned and ts.project_id in (${projects})))`;
}

/** A user named in the path must belong to the caller's organization (404 otherwise). */
export async function requireOrganizationUser(db: Queryable, actor: Actor, userId: number): Promise<void> {
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`select user_id as id from organization_members where organization_id = ${actor.organizationId} and user_id = ${userId}`,
  );
  if (!row) throw notFound('user');
}

/** Another user's task history is for organization owners and admins; one's own is always readable. */
export async function authorizeUserHistory(db: Queryable, actor: Actor, userId: number): Promise<void> {
  await requireOrganizationUser(db, actor, userId);
  if (userId !== actor.userId && !orgWide(actor)) throw forbidden('only organization owners and admins read the task history of others');
}

/**
 * SQL condition: `userColumn` may be an assignee or member of a task in `projectColumn` (the rule
 * of tasks.policy.ts's requireAssignable, as a filter): an active member of the organization who
 * is an owner or admin, or who belongs to a space holding the project. Copies keep only such people.
 */
export function assignableCondition(actor: Actor, userColumn: SQL, projectColumn: SQL): SQL {
  return sql`exists (select 1 from organization_members om
    where om.user_id = ${userColumn} and om.organization_id = ${actor.organizationId} and om.active and om.deleted_at is null
      and (om.role in ('owner', 'admin') or exists (
        select 1 from space_members sm join projects p on p.id = ${projectColumn}
        where sm.user_id = om.user_id and (sm.space_id = p.space_id
          or sm.space_id in (select ps.space_id from project_spaces ps where ps.project_id = p.id)))))`;
}
