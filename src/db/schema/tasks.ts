import { sql, type SQL } from 'drizzle-orm';
import { boolean, check, date, doublePrecision, index, integer, pgTable, primaryKey, smallint, text, uniqueIndex, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, tsvector, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects, stages } from './projects.js';
import { spaces } from './spaces.js';
import { users } from './users.js';
import { files } from './files.js';

export const tasks = pgTable(
  'tasks',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    // Space and project of the pinned (home) column, kept here so lists filter without joins.
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    color: text('color'),
    status: smallint('status').notNull().default(0),
    dateBegin: ts('date_begin'),
    dateEnd: ts('date_end'),
    dateBeginWithoutTime: date('date_begin_without_time', { mode: 'string' }),
    dateEndWithoutTime: date('date_end_without_time', { mode: 'string' }),
    dateMove: ts('date_move'),
    dateStatusChanged: ts('date_status_changed'),
    blockReason: text('block_reason'),
    importance: smallint('importance').notNull().default(-1),
    planTime: doublePrecision('plan_time').notNull().default(0),
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // Full-text search (GET /tasks/search) over name and description, stored so a search reads it
    // instead of parsing every matching text again (migration 0019). 'simple': no language is
    // assumed; left(): a tsvector holds at most 1 MB, and a 1 MiB description must never fail its insert.
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      (): SQL => sql`to_tsvector('simple'::regconfig, left(coalesce(${tasks.name}, '') || ' ' || coalesce(${tasks.description}, ''), 100000))`,
    ),
  },
  (t) => [
    index('tasks_space_idx').on(t.spaceId, t.status),
    index('tasks_org_idx').on(t.organizationId, t.createdAt),
    index('tasks_creator_idx').on(t.creatorId),
    index('tasks_date_end_idx').on(t.organizationId, t.dateEnd),
    // Task-list filters: statuses per project, the archive list, closed tasks by when they closed.
    index('tasks_project_status_idx').on(t.projectId, t.status),
    index('tasks_archived_idx').on(t.projectId, t.archivedAt).where(sql`${t.archivedAt} is not null`),
    index('tasks_status_changed_idx').on(t.organizationId, t.dateStatusChanged),
    index('tasks_search_idx').using('gin', t.searchVector),
    check('tasks_status_check', sql`${t.status} between 0 and 3`),
    check('tasks_importance_check', sql`${t.importance} between -1 and 3`),
  ],
);

/**
 * Where a task sits on boards: one column per project, `pinned` marks the home one. Positions are
 * dense per column; an archived task keeps its row with a null position (restore brings it back).
 * (stage_id, order) is unique through a deferrable constraint added in a custom migration (checked at
 * the end of each statement, 0018), so a renumbering statement may pass through transient duplicates.
 */
export const taskStages = pgTable(
  'task_stages',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    stageId: ref('stage_id').notNull().references(() => stages.id, { onDelete: 'cascade' }),
    order: integer('order'),
    pinned: boolean('pinned').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.taskId, t.projectId] }),
    // (stage_id, order) is indexed by the unique constraint task_stages_stage_order_key (migrations 0001, 0018).
    index('task_stages_project_idx').on(t.projectId),
    // Tasks linked into another project than their home one, for the readable-task condition (migration 0019).
    index('task_stages_linked_idx').on(t.organizationId, t.projectId).where(sql`not ${t.pinned}`),
  ],
);

export const taskHistory = pgTable(
  'task_history',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    // null when automation acted.
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    type: smallint('type').notNull(),
    state: text('state').notNull(),
    projectName: text('project_name').notNull().default(''),
    commitName: text('commit_name').notNull().default(''),
    commitLink: text('commit_link').notNull().default(''),
    taskName: text('task_name').notNull(),
    updateDate: ts('update_date').notNull().defaultNow(),
    // The automation rule that made the change (user_id is then null); a plain number, as the
    // history outlives the rule.
    automationRuleId: ref('automation_rule_id'),
    // The MCP client (its initialize name) the user acted through, when the change came from an agent.
    clientName: text('client_name'),
  },
  (t) => [index('task_history_task_idx').on(t.taskId, t.id), index('task_history_user_idx').on(t.userId, t.updateDate)],
);

export const labels = pgTable(
  'labels',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color').notNull(),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('labels_org_idx').on(t.organizationId)],
);


export const taskAssignees = pgTable(
  'task_assignees',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.userId] }), index('task_assignees_user_idx').on(t.userId)],
);

export const taskMembers = pgTable(
  'task_members',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.userId] }), index('task_members_user_idx').on(t.userId)],
);

export const taskLabels = pgTable(
  'task_labels',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    labelId: ref('label_id').notNull().references(() => labels.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.labelId] }), index('task_labels_label_idx').on(t.labelId)],
);

export const subtasks = pgTable(
  'subtasks',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isChecked: boolean('is_checked').notNull().default(false),
    // A subtask shown on the board becomes a linked child task.
    childTaskId: ref('child_task_id').references(() => tasks.id, { onDelete: 'set null' }),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('subtasks_task_idx').on(t.taskId, t.order), index('subtasks_child_idx').on(t.childTaskId)],
);

export const taskCovers = pgTable(
  'task_covers',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    dominantColor: text('dominant_color').notNull(),
    pictureUid: uuid('picture_uid').notNull().defaultRandom(),
  },
  (t) => [uniqueIndex('task_covers_task_key').on(t.taskId)],
);

export const taskInspectors = pgTable(
  'task_inspectors',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    // 0 waiting, 1 approved, 2 changes requested.
    status: smallint('status').notNull().default(0),
    comment: text('comment'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('task_inspectors_task_user_key').on(t.taskId, t.userId), index('task_inspectors_user_idx').on(t.userId), check('task_inspectors_status_check', sql`${t.status} between 0 and 2`)],
);

export const taskMessages = pgTable(
  'task_messages',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    authorId: ref('author_id').references(() => users.id, { onDelete: 'set null' }),
    text: text('text').notNull(),
    // A reply outlives the message it answers: deleting that one clears the link.
    replyToId: ref('reply_to_id').references((): AnyPgColumn => taskMessages.id, { onDelete: 'set null' }),
    pinned: boolean('pinned').notNull().default(false),
    editedAt: ts('edited_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // Full-text search over chat texts (GET /tasks/search), stored as the task's own (migration 0019).
    searchVector: tsvector('search_vector').generatedAlwaysAs((): SQL => sql`to_tsvector('simple'::regconfig, left(${taskMessages.text}, 100000))`),
  },
  (t) => [
    index('task_messages_task_idx').on(t.taskId, t.id),
    index('task_messages_search_idx').using('gin', t.searchVector),
  ],
);

export const timeRecords = pgTable(
  'time_records',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    taskId: ref('task_id').notNull().references(() => tasks.id, { onDelete: 'cascade' }),
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    date: date('date', { mode: 'string' }).notNull(),
    hours: doublePrecision('hours').notNull(),
    comment: text('comment'),
    source: text('source', { enum: ['manual', 'timer'] }).notNull().default('manual'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('time_records_task_idx').on(t.taskId), index('time_records_user_idx').on(t.userId, t.date), check('time_records_hours_check', sql`${t.hours} > 0 and ${t.hours} <= 24`)],
);
