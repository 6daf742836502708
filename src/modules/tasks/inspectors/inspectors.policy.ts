import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { AppError, forbidden, notFound } from '../../../platform/errors.js';
import { authorizeTask, type TaskAccess } from '../tasks.policy.js';

/**
 * routes.md "Inspectors": adding and removing an inspector is a change of the task (S:member, the
 * tasks policy's `update`); the verdict (status) is the inspector's own: any other user, whatever
 * their role, gets 403. 404 when the task is not visible or the user does not inspect it.
 */
const TASK_ACTION = { remove: 'update', setStatus: 'read' } as const;

export type InspectorAction = keyof typeof TASK_ACTION;

export async function authorizeInspector(db: Queryable, actor: Actor, taskId: number, inspectorId: number, action: InspectorAction): Promise<TaskAccess> {
  const task = await authorizeTask(db, actor, taskId, TASK_ACTION[action]);
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`select id from task_inspectors where task_id = ${taskId} and user_id = ${inspectorId} and organization_id = ${actor.organizationId}`,
  );
  if (!row) throw notFound('inspector');
  if (action === 'setStatus' && inspectorId !== actor.userId) throw forbidden('only the inspector may set their verdict');
  // An archived task is read-only until restored, as for every other task change.
  if (task.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
  return task;
}
