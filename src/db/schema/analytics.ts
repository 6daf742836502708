import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, smallint } from 'drizzle-orm/pg-core';
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
    // Stays that ended in a range (average days in a column), read without the table.
    index('task_stage_stays_left_idx').on(t.projectId, t.leftAt, t.stageId, t.enteredAt).where(sql`${t.leftAt} is not null`),
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

/**
 * The report ledger: what each task contributes to the rollups below, one row per fact and per
 * project the task sits in (stays: per project of the stay). `analytics_sync(task ids)` (migration
 * 0013) replaces a task's rows and adds the difference to the rollups, so rollups equal the sum of
 * the ledger; it runs for the tasks queued in `analytics_dirty` once their writes have committed.
 * Kinds: 0 the task now (stage, status, plan hours), 1 created, 2 set to done, 3 set to rejected
 * (`prev_at`: the task's previous change to the same status; `until`: its creation, for lead time;
 * on 2, `stage_id` is the project's first column when synced and `value` the days from first
 * leaving it, for cycle time), 4 an overdue stretch [at, until),
 * 5 hours of a time record (`user_id` recorded them; `at` is the record's day), 6 a stay in a column
 * [at, until) (ended by leaving or archiving), 7 a stay that ended by leaving at `at` (`value`: its
 * seconds). Reports read the ledger only where a day's rollup is
 * too coarse: the partial days at the edges of a range, repeats, drill-downs. No foreign keys: a
 * task's rows must outlive its delete until the sync subtracts them.
 */
export const analyticsFacts = pgTable(
  'analytics_facts',
  {
    taskId: ref('task_id').notNull(),
    organizationId: ref('organization_id').notNull(),
    projectId: ref('project_id').notNull(),
    kind: smallint('kind').notNull(),
    stageId: ref('stage_id'),
    status: smallint('status'),
    userId: ref('user_id'),
    assignees: bigint('assignees', { mode: 'number' }).array().notNull(),
    archived: boolean('archived').notNull(),
    // The task sits in more than one project: a report over several projects counts it once.
    multi: boolean('multi').notNull(),
    at: ts('at'),
    until: ts('until'),
    prevAt: ts('prev_at'),
    value: doublePrecision('value').notNull(),
    // On changes to done: when the task first left each column of the project ({stage id: time}),
    // so cycle time needs no look-up per finished task, whichever column is first when it is asked.
    departures: jsonb('departures'),
  },
  (t) => [
    index('analytics_facts_task_idx').on(t.taskId),
    index('analytics_facts_at_idx').on(t.projectId, t.kind, t.at),
    index('analytics_facts_until_idx').on(t.projectId, t.kind, t.until).where(sql`${t.until} is not null`),
    index('analytics_facts_repeat_idx').on(t.projectId, t.at).where(sql`${t.prevAt} is not null`),
    index('analytics_facts_multi_idx').on(t.projectId).where(sql`${t.multi}`),
  ],
);

const rollupKeys = {
  organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
};

/**
 * Tasks now per project, column, status and archived flag; `assignee_id` narrows to one assignee's
 * tasks, `user_id` breaks them down per assignee (0: all, in both).
 */
export const analyticsCounts = pgTable(
  'analytics_counts',
  {
    ...rollupKeys,
    assigneeId: ref('assignee_id').notNull(),
    userId: ref('user_id').notNull(),
    stageId: ref('stage_id').notNull(),
    status: smallint('status').notNull(),
    archived: boolean('archived').notNull(),
    tasks: integer('tasks').notNull(),
    planTime: numeric('plan_time').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.assigneeId, t.userId, t.stageId, t.status, t.archived] })],
);

/**
 * Per project and UTC day: tasks created, changes to done and to rejected, the change of the overdue
 * count (stretches starting minus ending that day) and hours recorded (`user_id`: by that user).
 */
export const analyticsDays = pgTable(
  'analytics_days',
  {
    ...rollupKeys,
    assigneeId: ref('assignee_id').notNull(),
    userId: ref('user_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    archived: boolean('archived').notNull(),
    created: integer('created').notNull(),
    finished: integer('finished').notNull(),
    rejected: integer('rejected').notNull(),
    overdue: integer('overdue').notNull(),
    hours: numeric('hours').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.assigneeId, t.userId, t.archived, t.day] })],
);

/**
 * Per column and UTC day: tasks that entered it minus those that left it or were archived (cumulative
 * flow), and the stays in it that ended that day by leaving, with their total length (average days
 * in a column).
 */
export const analyticsFlow = pgTable(
  'analytics_flow',
  {
    ...rollupKeys,
    stageId: ref('stage_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    delta: integer('delta').notNull(),
    staysEnded: integer('stays_ended').notNull().default(0),
    staySeconds: numeric('stay_seconds').notNull().default('0'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.stageId, t.day] })],
);

/**
 * Tasks whose ledger rows may be stale, queued by the triggers of migration 0016 in the writing
 * transaction and applied after it commits by `analytics_drain` (analytics.queue.ts). Writers only
 * append: no unique key, no row two writers share, duplicates expected (the drain syncs each task
 * once per batch). No foreign keys: a deleted task's rows must outlive it until the sync subtracts
 * its ledger, and an organization's delete queues rows of the organization it deletes.
 */
export const analyticsDirty = pgTable(
  'analytics_dirty',
  {
    id: id(),
    organizationId: ref('organization_id').notNull(),
    taskId: ref('task_id').notNull(),
  },
  (t) => [index('analytics_dirty_org_idx').on(t.organizationId, t.id)],
);
