import type { Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { authorizeColumn, authorizeTask, type ColumnAccess, type TaskAccess, type TaskAction } from '../tasks.policy.js';

/**
 * routes.md "Task properties" 28–34: reading the checklist is S:reader; every change of it is S:member
 * on any task of the space (tasks.policy's `update`). Showing a subtask on the board also creates a
 * task, so it needs S:member in the target column's project as well.
 */
const RULES = {
  list: 'read',
  create: 'update',
  rename: 'update',
  move: 'update',
  check: 'update',
  delete: 'update',
  showOnBoard: 'update',
} as const satisfies Record<string, TaskAction>;

export type SubtaskAction = keyof typeof RULES;

/** 404 when the caller cannot see the task, 403 when its role is below the action's. */
export function authorizeSubtasks(db: Queryable, actor: Actor, taskId: number, action: SubtaskAction): Promise<TaskAccess> {
  return authorizeTask(db, actor, taskId, RULES[action]);
}

/** The column a child task is created in: S:member in its project (404 when the caller cannot see it). */
export function authorizeChildColumn(db: Queryable, actor: Actor, stageId: number): Promise<ColumnAccess> {
  return authorizeColumn(db, actor, stageId, 'create');
}
