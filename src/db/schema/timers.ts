import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { tasks, timeRecords } from './tasks.js';
import { users } from './users.js';

/**
 * A user's stopwatch on a task. Stopping it writes a time record (source `timer`). `project_id` is
 * the task's home project when the timer started, so project timer lists need no join.
 */
export const timers = pgTable(
  'timers',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    startedAt: ts('started_at').notNull().defaultNow(),
    stoppedAt: ts('stopped_at'),
    // Elapsed seconds, set when the timer stops.
    seconds: integer('seconds'),
    recordId: ref('record_id').references(() => timeRecords.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    // One running timer per user: starting another stops the first.
    uniqueIndex('timers_user_running_key').on(t.userId).where(sql`${t.stoppedAt} is null`),
    index('timers_org_user_idx').on(t.organizationId, t.userId, t.startedAt),
    index('timers_project_idx').on(t.projectId, t.startedAt),
    index('timers_task_idx').on(t.taskId),
    check('timers_stopped_check', sql`(${t.stoppedAt} is null) = (${t.seconds} is null) and (${t.stoppedAt} is null or ${t.stoppedAt} >= ${t.startedAt})`),
  ],
);
