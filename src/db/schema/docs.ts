import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { files } from './files.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

/** Document content limit (conventions.md: descriptions and document content 1 MiB), in UTF-8 bytes. */
export const CONTENT_MAX_BYTES = 1_048_576;

// Sections of a space's documentation; each holds a tree of pages.
export const documentationGroups = pgTable(
  'documentation_groups',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('documentation_groups_space_idx').on(t.spaceId), check('documentation_groups_order_check', sql`${t.order} >= 0`)],
);

export const pages = pgTable(
  'pages',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    // A group is deleted only once empty (the service answers GROUP_NOT_EMPTY first). NO ACTION, not
    // RESTRICT: it is checked at the end of the statement, so deleting a whole space cascades cleanly.
    documentationGroupId: ref('documentation_group_id').notNull().references(() => documentationGroups.id, { onDelete: 'no action' }),
    // Deleting a page deletes its subtree.
    parentPageId: ref('parent_page_id').references((): AnyPgColumn => pages.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    icon: text('icon'),
    content: text('content').notNull().default(''),
    // Position among siblings (same group and parent); archived pages keep theirs so restore puts them back.
    order: integer('order').notNull().default(0),
    // Set while published: the unguessable part of the public URL. Unpublishing clears it, killing old links.
    publicToken: text('public_token'),
    archivedAt: ts('archived_at'),
    // Bumped by every accepted content write; the ETag of the page.
    version: integer('version').notNull().default(1),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    updatedById: ref('updated_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('pages_group_parent_idx').on(t.documentationGroupId, t.parentPageId),
    index('pages_parent_idx').on(t.parentPageId),
    index('pages_space_idx').on(t.spaceId),
    uniqueIndex('pages_public_token_key').on(t.publicToken),
    check('pages_content_size_check', sql`octet_length(${t.content}) <= ${sql.raw(String(CONTENT_MAX_BYTES))}`),
    check('pages_version_check', sql`${t.version} >= 1`),
    check('pages_order_check', sql`${t.order} >= 0`),
    check('pages_not_own_parent_check', sql`${t.parentPageId} is distinct from ${t.id}`),
  ],
);

// The caller's own view of a page in the tree.
export const pageUserSettings = pgTable(
  'page_user_settings',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    pageId: ref('page_id').notNull().references(() => pages.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    collapsed: boolean('collapsed').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.pageId, t.userId] })],
);

// Change history of a page's content. Consecutive writes by one author within a few minutes are merged
// into the latest row (its version, size, content and time move forward), so typing does not flood it.
export const pageVersions = pgTable(
  'page_versions',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    pageId: ref('page_id').notNull().references(() => pages.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    size: integer('size').notNull(),
    content: text('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('page_versions_page_version_key').on(t.pageId, t.version), check('page_versions_size_check', sql`${t.size} >= 0`)],
);

export const pageFiles = pgTable(
  'page_files',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    pageId: ref('page_id').notNull().references(() => pages.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.pageId, t.fileId] }), index('page_files_file_idx').on(t.fileId)],
);

// A project's documentation tab: one row, created by the first write.
export const projectDocumentation = pgTable(
  'project_documentation',
  {
    projectId: ref('project_id').primaryKey().references(() => projects.id, { onDelete: 'cascade' }),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    content: text('content').notNull().default(''),
    version: integer('version').notNull().default(0),
    updatedById: ref('updated_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('project_documentation_content_size_check', sql`octet_length(${t.content}) <= ${sql.raw(String(CONTENT_MAX_BYTES))}`),
    check('project_documentation_version_check', sql`${t.version} >= 0`),
  ],
);

export const PROJECT_DOCUMENTATION_FILE_KINDS = ['image', 'file'] as const;

export const projectDocumentationFiles = pgTable(
  'project_documentation_files',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: PROJECT_DOCUMENTATION_FILE_KINDS }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.fileId] }),
    index('project_documentation_files_file_idx').on(t.fileId),
    check('project_documentation_files_kind_check', sql`${t.kind} in ('image','file')`),
  ],
);
