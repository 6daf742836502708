import { sql, type SQL } from 'drizzle-orm';
import { idArray, idIn, queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRankSql, projectRoleOf, requireRole, roleOfRank, spaceRoleOf, type SpaceRole } from '../../platform/access.js';
import { AppError, notFound } from '../../platform/errors.js';

/**
 * The task rows of conventions.md's role table (routes.md `S:member*`: own tasks as member, any as
 * editor). The role is the best over the spaces of the task's (live) projects.
 */
const RULES = {
  read: 'reader',
  create: 'member',
  move: 'member',
  update: 'member', // colour, planned time, inspectors
} as const satisfies Record<string, SpaceRole>;

const OWN_OR_ANY = {
  archive: { own: 'member', any: 'editor' },
  restore: { own: 'member', any: 'editor' },
  delete: { own: 'member', any: 'editor' },
} as const satisfies Record<string, { own: SpaceRole; any: SpaceRole }>;

export type TaskAction = keyof typeof RULES | keyof typeof OWN_OR_ANY;

const RANK_ROLE: Record<number, SpaceRole> = { 1: 'reader', 2: 'member', 3: 'editor', 4: 'admin' };

/** What the policy loads about a task; services reuse it instead of reading the row again. */
export interface TaskAccess {
  id: number;
  name: string;
  creatorId: number | null;
  archived: boolean;
  role: SpaceRole | null;
  /** Where the task lives (its home space and project): what its events are addressed by. */
  spaceId: number;
  projectId: number;
}

/**
 * The caller's role on many tasks in one query (platform/access.ts's taskRoleOf, in bulk). A task
 * counts only through projects that are not soft-deleted: a task whose projects are all in the
 * trash does not exist for anyone (404).
 */
export async function taskAccessOf(db: Queryable, actor: Actor, taskIds: number[], lock = false): Promise<Map<number, TaskAccess>> {
  if (taskIds.length === 0) return new Map();
  const rows = await queryRows<TaskAccessRow>(db, taskAccessSql(actor, taskIds, lock), { prepare: lock ? 'task-access-lock' : 'task-access' });
  return new Map(rows.map((r) => [Number(r.id), taskAccessFrom(r)]));
}

type TaskAccessRow = { id: number; name: string; creatorId: number | null; archived: boolean; spaceId: number; projectId: number; rank: number | null };

function taskAccessSql(actor: Actor, taskIds: number[], lock: boolean): SQL {
  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  return sql`with live as (
          select ts.task_id, p.id as project_id, p.space_id
          from task_stages ts join projects p on p.id = ts.project_id and p.deleted_at is null
          where ${idIn(sql`ts.task_id`, taskIds)} and ts.organization_id = ${actor.organizationId})
        select t.id, t.name, t.creator_id as "creatorId", t.archived_at is not null as archived,
          t.space_id as "spaceId", t.project_id as "projectId",
          ${
            orgWide
              ? sql`4`
              : sql`(select max(case sm.role when 'admin' then 4 when 'editor' then 3 when 'member' then 2 when 'reader' then 1 end)
                     from space_members sm
                     where sm.user_id = ${actor.userId} and sm.space_id in (
                       select l.space_id from live l where l.task_id = t.id
                       union select ps.space_id from live l join project_spaces ps on ps.project_id = l.project_id where l.task_id = t.id))`
          } as rank
        from tasks t
        where t.id in (select task_id from live) and t.organization_id = ${actor.organizationId}
        ${lock ? sql`order by t.id for no key update of t` : sql``}`;
}

const taskAccessFrom = (r: TaskAccessRow): TaskAccess => ({
  id: Number(r.id),
  name: r.name,
  creatorId: r.creatorId === null ? null : Number(r.creatorId),
  archived: r.archived,
  role: r.rank ? RANK_ROLE[Number(r.rank)]! : null,
  spaceId: Number(r.spaceId),
  projectId: Number(r.projectId),
});

function leastRoleFor(action: TaskAction, actor: Actor, task: TaskAccess): SpaceRole {
  if (action in OWN_OR_ANY) {
    const rule = OWN_OR_ANY[action as keyof typeof OWN_OR_ANY];
    return task.creatorId === actor.userId ? rule.own : rule.any;
  }
  return RULES[action as keyof typeof RULES];
}

/**
 * The caller's rank (1 reader … 4 admin, null = may not see) on the task `t` of a statement, by the
 * same rules as taskAccessOf, for reads that authorize and load in one statement.
 */
export function taskRankSql(actor: Actor): SQL {
  const live = sql`select p.id as project_id, p.space_id from task_stages ts
                   join projects p on p.id = ts.project_id and p.deleted_at is null where ts.task_id = t.id`;
  if (actor.orgRole === 'owner' || actor.orgRole === 'admin') return sql`case when exists (${live}) then 4 end`;
  return sql`(select max(case sm.role when 'admin' then 4 when 'editor' then 3 when 'member' then 2 when 'reader' then 1 end)
              from space_members sm
              where sm.user_id = ${actor.userId} and sm.space_id in (
                select l.space_id from (${live}) l
                union select ps.space_id from (${live}) l join project_spaces ps on ps.project_id = l.project_id))`;
}

/** Reading a task loaded with taskRankSql: 404 when it may not be seen. */
export function requireTaskRead(rank: number | null | undefined): void {
  requireRole(rank ? RANK_ROLE[Number(rank)]! : null, RULES.read, 'task');
}

/**
 * Authorizes one action on several tasks with one query: 404 if any is not visible (before any
 * 403), then 403 if the role on any is below the action's. With `lock`, the same statement locks
 * the tasks' rows (by id, as lockTasks does) for the rest of the transaction.
 */
export async function authorizeTasks(db: Queryable, actor: Actor, taskIds: number[], action: TaskAction, options: { lock?: boolean } = {}): Promise<TaskAccess[]> {
  return requireTasks(actor, taskIds, action, await taskAccessOf(db, actor, taskIds, options.lock));
}

function requireTasks(actor: Actor, taskIds: number[], action: TaskAction, access: Map<number, TaskAccess>): TaskAccess[] {
  const tasks = taskIds.map((id) => {
    const task = access.get(id);
    if (!task || task.role === null) throw notFound(`task ${id}`);
    return task;
  });
  for (const task of tasks) requireRole(task.role, leastRoleFor(action, actor, task), 'task');
  return tasks;
}

export async function authorizeTask(db: Queryable, actor: Actor, taskId: number, action: TaskAction): Promise<TaskAccess> {
  return (await authorizeTasks(db, actor, [taskId], action))[0]!;
}

/** A column a task is placed in, with what the board rules need. */
export interface ColumnAccess {
  id: number;
  name: string;
  projectId: number;
  projectName: string;
  spaceId: number;
  tasksLimit: number;
}

/** Creating in, moving to or restoring into a column is decided on the column's project. */
export async function authorizeColumn(db: Queryable, actor: Actor, stageId: number, action: 'create' | 'move'): Promise<ColumnAccess> {
  // The column and the caller's rank on its project in one statement: this is every write's first.
  const [column] = await queryRows<ColumnRow>(db, columnAccessSql(actor, stageId), { prepare: 'column-access' });
  return requireColumn(actor, column, action);
}

/**
 * A move's two checks, the target column and the tasks (locked, by id), in one statement: the
 * column is judged first, as authorizeColumn then authorizeTasks would.
 */
export async function authorizeMove(db: Queryable, actor: Actor, stageId: number, taskIds: number[]): Promise<{ column: ColumnAccess; tasks: TaskAccess[] }> {
  const [row] = await queryRows<{ column: ColumnRow | null; tasks: TaskAccessRow[] }>(
    db,
    sql`with c as (${columnAccessSql(actor, stageId)}), k as (${taskAccessSql(actor, taskIds, true)})
        select (select row_to_json(c) from c) as column, (select coalesce(json_agg(k), '[]') from k) as tasks`,
    { prepare: 'move-access' },
  );
  const column = requireColumn(actor, row?.column ?? undefined, 'move');
  const access = new Map((row?.tasks ?? []).map((r) => [Number(r.id), taskAccessFrom(r)]));
  return { column, tasks: requireTasks(actor, taskIds, 'move', access) };
}

type ColumnRow = ColumnAccess & { rank: number | null };

const columnAccessSql = (actor: Actor, stageId: number): SQL =>
  sql`select s.id, s.name, s.project_id as "projectId", p.name as "projectName", p.space_id as "spaceId", s.tasks_limit as "tasksLimit",
        ${projectRankSql(actor)} as rank
      from stages s join projects p on p.id = s.project_id and p.deleted_at is null
      where s.id = ${stageId} and s.organization_id = ${actor.organizationId}`;

function requireColumn(actor: Actor, column: ColumnRow | undefined, action: 'create' | 'move'): ColumnAccess {
  if (!column) throw notFound('stage');
  requireRole(roleOfRank(actor, column.rank), RULES[action], 'stage');
  return { id: Number(column.id), name: column.name, projectId: Number(column.projectId), projectName: column.projectName, spaceId: Number(column.spaceId), tasksLimit: Number(column.tasksLimit) };
}

/** Reading a project's task lists: S:reader on it, and the project is not in the trash. */
export async function authorizeProjectTasks(db: Queryable, actor: Actor, projectId: number): Promise<void> {
  const [live] = await queryRows<{ id: number }>(
    db,
    sql`select id from projects where id = ${projectId} and organization_id = ${actor.organizationId} and deleted_at is null`,
    { prepare: 'project-live' },
  );
  requireRole(live ? await projectRoleOf(db, actor, projectId) : null, RULES.read, 'project');
}

export async function authorizeSpaceTasks(db: Queryable, actor: Actor, spaceId: number): Promise<void> {
  requireRole(await spaceRoleOf(db, actor, spaceId), RULES.read, 'space');
}

/**
 * Who may be assigned to (or inspect) a task of a project: active members of the organization who
 * belong to a space holding the project, or who act as space admins everywhere (owner, admin).
 * 400 naming the field when any is not.
 */
export async function requireAssignable(db: Queryable, actor: Actor, projectId: number, userIds: number[], field: string): Promise<void> {
  if (userIds.length === 0) return;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select u.id from unnest(${idArray(userIds)}) as u(id)
        join organization_members om on om.user_id = u.id and om.organization_id = ${actor.organizationId}
          and om.active and om.deleted_at is null
        where om.role in ('owner', 'admin') or exists (
          select 1 from space_members sm join projects p on p.id = ${projectId}
          where sm.user_id = u.id and (sm.space_id = p.space_id
            or sm.space_id in (select ps.space_id from project_spaces ps where ps.project_id = p.id)))`,
  );
  const ok = new Set(rows.map((r) => Number(r.id)));
  const bad = userIds.filter((id) => !ok.has(id));
  if (bad.length > 0) {
    throw new AppError('VALIDATION_FAILED', `${field}: user ${bad.join(', ')} is not a member of the task's space`, [
      { path: `/${field}`, message: 'must name members of a space holding the project' },
    ]);
  }
}
