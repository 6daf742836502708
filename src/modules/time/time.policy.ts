import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, type SpaceRole } from '../../platform/access.js';
import { AppError, forbidden, notFound } from '../../platform/errors.js';
import { authorizeTask, taskAccessOf, type TaskAccess } from '../tasks/tasks.policy.js';

/**
 * routes.md "Time tracking" and "Timers" as role rules. Time is logged and timed on tasks one can
 * change (S:member); someone else's record needs S:editor (S:member*); a timer is stopped by its
 * owner only; organization timer lists show one's own timers unless one is an organization admin.
 */
const RULES = {
  logTime: 'member',
  startTimer: 'member',
} as const satisfies Record<string, SpaceRole>;

const OWN_OR_ANY = {
  updateRecord: { own: 'member', any: 'editor' },
  deleteRecord: { own: 'member', any: 'editor' },
} as const satisfies Record<string, { own: SpaceRole; any: SpaceRole }>;

/** An archived task is read-only until restored (as every other task change). */
function requireActive(task: TaskAccess): void {
  if (task.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
}

/** Logging time on or starting a timer on a task: 404 when the task is not visible, then 403, then 409 if archived. */
export async function authorizeTaskTime(db: Queryable, actor: Actor, taskId: number, action: keyof typeof RULES): Promise<TaskAccess> {
  const task = await authorizeTask(db, actor, taskId, 'read');
  requireRole(task.role, RULES[action], 'task');
  requireActive(task);
  return task;
}

export interface RecordAccess {
  id: number;
  taskId: number;
  userId: number | null;
  task: TaskAccess;
}

/** A time record as its task's readers see it: 404 unless the task is visible, 403 below the action's role. */
export async function authorizeRecord(db: Queryable, actor: Actor, recordId: number, action: keyof typeof OWN_OR_ANY): Promise<RecordAccess> {
  const [row] = await queryRows<{ id: number; taskId: number; userId: number | null }>(
    db,
    sql`select id, task_id as "taskId", user_id as "userId" from time_records where id = ${recordId} and organization_id = ${actor.organizationId}`,
  );
  if (!row) throw notFound('time record');
  const taskId = Number(row.taskId);
  const task = (await taskAccessOf(db, actor, [taskId])).get(taskId);
  if (!task || task.role === null) throw notFound('time record');
  const userId = row.userId === null ? null : Number(row.userId);
  const rule = OWN_OR_ANY[action];
  requireRole(task.role, userId === actor.userId ? rule.own : rule.any, 'time record');
  requireActive(task);
  return { id: Number(row.id), taskId, userId, task };
}

/** Whose timers an organization list may show: one's own, anyone's for organization owners and admins. */
export function authorizeTimerList(actor: Actor, userId: number | undefined): { userId: number | null } {
  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  if (orgWide) return { userId: userId ?? null };
  if (userId !== undefined && userId !== actor.userId) throw forbidden("only organization admins may list other users' timers");
  return { userId: actor.userId };
}

export interface TimerAccess {
  id: number;
  userId: number;
  taskId: number;
  projectId: number;
  startedAt: Date | string;
  stoppedAt: Date | string | null;
}

/**
 * Stopping a timer: it exists in the organization (404), is the caller's own (403) and still runs
 * (409). Not locked here: the service locks the task first (the lock order of every task change)
 * and then stops the timer only if it still runs.
 */
export async function authorizeTimerStop(db: Queryable, actor: Actor, timerId: number): Promise<TimerAccess> {
  const [row] = await queryRows<TimerAccess>(
    db,
    sql`select id, user_id as "userId", task_id as "taskId", project_id as "projectId", started_at as "startedAt", stopped_at as "stoppedAt"
        from timers where id = ${timerId} and organization_id = ${actor.organizationId}`,
  );
  if (!row) throw notFound('timer');
  if (Number(row.userId) !== actor.userId) throw forbidden('only the user who started a timer may stop it');
  if (row.stoppedAt !== null) throw new AppError('CONFLICT', 'the timer is already stopped');
  return { ...row, id: Number(row.id), userId: Number(row.userId), taskId: Number(row.taskId), projectId: Number(row.projectId) };
}
