import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';
import { tasks } from './tasks.js';

/**
 * One notification for one user. `dedup_key` names the cause (an assignment of a task, a mention in
 * a message, a due date); the unique index makes a second notification of the same cause a no-op.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    text: text('text').notNull(),
    taskId: ref('task_id').references(() => tasks.id, { onDelete: 'cascade' }),
    projectId: ref('project_id'),
    spaceId: ref('space_id'),
    actorId: ref('actor_id').references(() => users.id, { onDelete: 'set null' }),
    // The event that caused it (organization-scoped id), when one did.
    eventId: ref('event_id'),
    dedupKey: text('dedup_key').notNull(),
    read: boolean('read').notNull().default(false),
    archived: boolean('archived').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('notifications_dedup_key').on(t.organizationId, t.userId, t.dedupKey),
    index('notifications_user_idx').on(t.organizationId, t.userId, t.archived, t.id),
    index('notifications_user_task_idx').on(t.userId, t.taskId).where(sql`${t.taskId} is not null`),
  ],
);
