import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { atLeast, requireRole, type SpaceRole } from '../../../platform/access.js';
import { forbidden, notFound } from '../../../platform/errors.js';
import { authorizeTask, type TaskAccess } from '../tasks.policy.js';

/**
 * routes.md "Task properties" 14–21. Readers may read, comment and react (reading the task is the
 * gate for all of it); pinning is S:member; editing is the author's alone; deleting is the author's,
 * or any message for S:editor. A message is visible exactly when its task is (404 otherwise).
 */
const ROLE_RULES = {
  read: 'reader',
  send: 'reader',
  react: 'reader',
  pin: 'member',
} as const satisfies Record<string, SpaceRole>;

const AUTHOR_RULES = {
  edit: { author: 'reader', any: null },
  delete: { author: 'reader', any: 'editor' },
} as const satisfies Record<string, { author: SpaceRole; any: SpaceRole | null }>;

export type MessageAction = keyof typeof ROLE_RULES | keyof typeof AUTHOR_RULES;

export interface MessageAccess {
  task: TaskAccess;
  message: { id: number; authorId: number | null };
}

/** The chat of a task as a whole (list, send): 404 when the task is hidden, 403 below the role. */
export async function authorizeChat(db: Queryable, actor: Actor, taskId: number, action: 'read' | 'send'): Promise<TaskAccess> {
  const task = await authorizeTask(db, actor, taskId, 'read');
  requireRole(task.role, ROLE_RULES[action], 'task');
  return task;
}

/**
 * One message of a task, locked for the rest of the transaction: 404 when the task is hidden or the
 * message is not one of its own, then 403 when the role (or authorship) does not allow the action.
 */
export async function authorizeMessage(db: Queryable, actor: Actor, taskId: number, messageId: number, action: MessageAction): Promise<MessageAccess> {
  const task = await authorizeTask(db, actor, taskId, 'read');
  const [row] = await queryRows<{ id: number; authorId: number | null }>(
    db,
    sql`select id, author_id as "authorId" from task_messages
        where id = ${messageId} and task_id = ${taskId} and organization_id = ${actor.organizationId} for update`,
  );
  if (!row) throw notFound('message');
  const message = { id: Number(row.id), authorId: row.authorId === null ? null : Number(row.authorId) };
  if (action in AUTHOR_RULES) {
    const rule = AUTHOR_RULES[action as keyof typeof AUTHOR_RULES];
    const mayAsAuthor = message.authorId === actor.userId && atLeast(task.role, rule.author);
    const mayAsAny = rule.any !== null && atLeast(task.role, rule.any);
    if (!mayAsAuthor && !mayAsAny) throw forbidden(rule.any ? `only the author or a space ${rule.any} may ${action} this message` : `only the author may ${action} this message`);
  } else {
    requireRole(task.role, ROLE_RULES[action as keyof typeof ROLE_RULES], 'task');
  }
  return { task, message };
}
