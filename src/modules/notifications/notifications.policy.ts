import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { taskRoleOf } from '../../platform/access.js';
import { notFound } from '../../platform/errors.js';
import { COLUMNS, type NotificationRow } from './notifications.presenter.js';

/**
 * Notifications are `self` (routes.md): each belongs to one user in one organization, and nobody
 * else may learn it exists, so someone else's notification is 404, never 403. There is no role
 * that may not act on its own notifications.
 */
export async function ownNotification(db: Queryable, actor: Actor, id: number, lock = false): Promise<NotificationRow> {
  const [row] = await queryRows<NotificationRow>(
    db,
    sql`select ${COLUMNS} from notifications
        where id = ${id} and organization_id = ${actor.organizationId} and user_id = ${actor.userId}
        ${lock ? sql`for update` : sql``}`,
  );
  if (!row) throw notFound('notification');
  return row;
}

/**
 * Routes naming a task answer 404 for a task the caller cannot read, unless it has notifications
 * about it: someone who has left the task's space may still clear what they were told about it.
 */
export async function requireTaskSeen(db: Queryable, actor: Actor, taskId: number): Promise<void> {
  if ((await taskRoleOf(db, actor, taskId)) !== null) return;
  const [mine] = await queryRows<{ ok: number }>(
    db,
    sql`select 1 as ok from notifications where organization_id = ${actor.organizationId} and user_id = ${actor.userId} and task_id = ${taskId} limit 1`,
  );
  if (!mine) throw notFound('task');
}
