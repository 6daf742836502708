import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

export const projectGroups = pgTable(
  'project_groups',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('project_groups_space_idx').on(t.spaceId)],
);

export const projects = pgTable(
  'projects',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    // The home space; a project can also be linked into other spaces (project_spaces).
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    projectGroupId: ref('project_group_id').references(() => projectGroups.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    description: text('description'),
    order: integer('order').notNull().default(0),
    showDocumentationTab: boolean('show_documentation_tab').notNull().default(false),
    showTimelineTab: boolean('show_timeline_tab').notNull().default(false),
    showCalendarTab: boolean('show_calendar_tab').notNull().default(false),
    // Soft delete: restorable for 30 days.
    deletedAt: ts('deleted_at'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('projects_space_idx').on(t.spaceId), index('projects_org_idx').on(t.organizationId)],
);

// A project shown in a second space (in that space's group and order).
export const projectSpaces = pgTable(
  'project_spaces',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    projectGroupId: ref('project_group_id').references(() => projectGroups.id, { onDelete: 'set null' }),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.spaceId] }), index('project_spaces_space_idx').on(t.spaceId)],
);

export const projectUserSettings = pgTable(
  'project_user_settings',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    favorite: boolean('favorite').notNull().default(false),
    timelineScale: text('timeline_scale').notNull().default('week'),
    timelineGrouping: text('timeline_grouping').notNull().default('none'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] })],
);

// Kanban columns.
export const stages = pgTable(
  'stages',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    tasksLimit: integer('tasks_limit').notNull().default(0),
    color: text('color').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('stages_project_idx').on(t.projectId, t.order), check('stages_tasks_limit_check', sql`${t.tasksLimit} >= 0`)],
);
