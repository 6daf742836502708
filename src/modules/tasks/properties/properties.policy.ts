import type { Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { authorizeTask, type TaskAccess, type TaskAction } from '../tasks.policy.js';

/**
 * routes.md "Task properties": reading the description is S:reader; every change of a property is
 * S:member on any task of the space (not only one's own), which is tasks.policy's `update`.
 */
const RULES = {
  readDescription: 'read',
  rename: 'update',
  describe: 'update',
  setStatus: 'update',
  setDates: 'update',
  setImportance: 'update',
  changeAssignees: 'update',
  changeMembers: 'update',
  changeLabels: 'update',
  changeCover: 'update',
} as const satisfies Record<string, TaskAction>;

export type PropertyAction = keyof typeof RULES;

/** 404 when the caller cannot see the task, 403 when its role is below the action's. */
export function authorizeProperty(db: Queryable, actor: Actor, taskId: number, action: PropertyAction): Promise<TaskAccess> {
  return authorizeTask(db, actor, taskId, RULES[action]);
}
