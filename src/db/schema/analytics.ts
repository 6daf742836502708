import { sql } from 'drizzle-orm';
import { check, index, pgTable, smallint } from 'drizzle-orm/pg-core';
import { id, ref, ts } from './columns.js';
import { organizations } from './organizations.js';
import { projects, stages } from './projects.js';
import { tasks } from './tasks.js';

/**
 * The facts reports are computed from, written by database triggers (migration 0005) so that every
 * write path — moves, creates, duplicates, templates, imports, automation — records them without
 * remembering to: history rows are text for people, and the change log is pruned.
 *
 * One row per stay of a task in a column of a project: opened when the task enters the column,
 * closed (`left_at`) when it leaves it or the project.
 */
export const taskStageStays = pgTable(
  'task_stage_stays',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    stageId: ref('stage_id').notNull().references(() => stages.id, { onDelete: 'cascade' }),
    enteredAt: ts('entered_at').notNull(),
    leftAt: ts('left_at'),
  },
  (t) => [
    index('task_stage_stays_task_idx').on(t.taskId, t.projectId, t.enteredAt),
    index('task_stage_stays_project_idx').on(t.projectId, t.enteredAt),
  ],
);

/** One row per status a task takes (its first status at creation included), with when. */
export const taskStatusChanges = pgTable(
  'task_status_changes',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    status: smallint('status').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [
    index('task_status_changes_task_idx').on(t.taskId, t.at),
    index('task_status_changes_org_idx').on(t.organizationId, t.status, t.at),
    check('task_status_changes_status_check', sql`${t.status} between 0 and 3`),
  ],
);
