import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';

export const TABLE_COLUMN_TYPES = ['text', 'number', 'date', 'checkbox', 'select', 'user', 'task', 'url'] as const;
export type TableColumnType = (typeof TABLE_COLUMN_TYPES)[number];

/** A typed column of a project's Table view (routes.md "Columns and rows"). Positions dense per project. */
export const tableColumns = pgTable(
  'table_columns',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: TABLE_COLUMN_TYPES }).notNull(),
    // The choices of a select column; empty for other types.
    options: jsonb('options').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    width: integer('width').notNull().default(200),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('table_columns_project_idx').on(t.projectId, t.order),
    check('table_columns_type_check', sql`${t.type} in ('text', 'number', 'date', 'checkbox', 'select', 'user', 'task', 'url')`),
    check('table_columns_width_check', sql`${t.width} between 40 and 2000`),
    check('table_columns_options_check', sql`jsonb_typeof(${t.options}) = 'array'`),
  ],
);

/** A free row of a project's Table view; `cells` maps column ids (as strings) to values. */
export const tableRows = pgTable(
  'table_rows',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    order: integer('order').notNull().default(0),
    cells: jsonb('cells').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('table_rows_project_idx').on(t.projectId, t.order), check('table_rows_cells_check', sql`jsonb_typeof(${t.cells}) = 'object'`)],
);
