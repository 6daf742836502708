import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns.js';
import { pages } from './docs.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';

export const TAB_TYPES = ['link', 'doc', 'board', 'table'] as const;
export type TabType = (typeof TAB_TYPES)[number];

/**
 * A project's custom tabs (routes.md "Projects" 35-38): a link (url), a documentation page (pageId),
 * another project's board (sourceProjectId) or the project's table. What a tab points at may go
 * away later (a page deleted, a project purged): the tab stays, pointing at nothing.
 */
export const projectTabs = pgTable(
  'project_tabs',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').$type<TabType>().notNull(),
    name: text('name').notNull(),
    url: text('url'),
    pageId: ref('page_id').references(() => pages.id, { onDelete: 'set null' }),
    sourceProjectId: ref('source_project_id').references(() => projects.id, { onDelete: 'set null' }),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('project_tabs_project_idx').on(t.projectId, t.order),
    check('project_tabs_type_check', sql`${t.type} in ('link', 'doc', 'board', 'table')`),
  ],
);
