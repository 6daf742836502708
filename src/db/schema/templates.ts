import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import type { TabType } from './tabs.js';
import { users } from './users.js';

export interface TemplateStage {
  name: string;
  color: string;
  tasksLimit: number;
}

export interface TemplateTab {
  type: TabType;
  name: string;
  url: string | null;
  pageId: number | null;
  sourceProjectId: number | null;
}

/** A task as a template keeps it: no dates, no people, no status (routes.md: "no dates or people"). */
export interface TemplateTask {
  /** Index into the template's stages. */
  stage: number;
  name: string;
  description: string | null;
  color: string | null;
  importance: number;
  planTime: number;
  labelIds: number[];
  subtasks: string[];
}

/**
 * A project template: a snapshot of a project's columns, tabs and (optionally) tasks, taken when the
 * template is made, so later changes to the project, or its deletion, leave it as it was.
 */
export const projectTemplates = pgTable(
  'project_templates',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    sourceProjectId: ref('source_project_id').references(() => projects.id, { onDelete: 'set null' }),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    withTasks: boolean('with_tasks').notNull().default(false),
    stages: jsonb('stages').$type<TemplateStage[]>().notNull(),
    tabs: jsonb('tabs').$type<TemplateTab[]>().notNull(),
    tasks: jsonb('tasks').$type<TemplateTask[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('project_templates_organization_idx').on(t.organizationId)],
);
