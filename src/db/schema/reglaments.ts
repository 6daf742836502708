import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns.js';
import { files } from './files.js';
import { organizations } from './organizations.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

/** Content of a reglament or of one of its versions: stored as given (HTML or Markdown), at most 1 MiB. */
const CONTENT_LIMIT = 1_048_576;

export const REGLAMENT_EVENT_ACTIONS = [
  'created',
  'renamed',
  'content',
  'published',
  'mandatory',
  'moved',
  'space-added',
  'space-removed',
  'version',
  'restored',
  'passed',
  'cleared',
  'question',
  'answer',
  'file',
] as const;
export type ReglamentEventAction = (typeof REGLAMENT_EVENT_ACTIONS)[number];

// A space's sections of reglaments; the spec calls a group's id `reglamentColumnId`.
export const reglamentGroups = pgTable(
  'reglament_groups',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Target of the placements' composite key, so a placement's group is always in the placement's space.
    unique('reglament_groups_id_space_key').on(t.id, t.spaceId),
    index('reglament_groups_space_idx').on(t.spaceId),
    check('reglament_groups_order_check', sql`${t.order} >= 0`),
  ],
);

export const reglaments = pgTable(
  'reglaments',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    // The home space: it cannot be unlinked, only the reglament deleted (which this cascade also does).
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    content: text('content').notNull().default(''),
    draft: boolean('draft').notNull().default(false),
    mandatory: boolean('mandatory').notNull().default(false),
    // Content revision, sent as the ETag and checked against If-Match; every content write bumps it.
    version: integer('version').notNull().default(1),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('reglaments_space_idx').on(t.spaceId),
    index('reglaments_org_idx').on(t.organizationId),
    index('reglaments_search_idx').using('gin', sql`to_tsvector('simple', ${t.name} || ' ' || ${t.content})`),
    check('reglaments_content_size_check', sql`octet_length(${t.content}) <= ${sql.raw(String(CONTENT_LIMIT))}`),
    check('reglaments_name_check', sql`char_length(${t.name}) between 1 and 500`),
    check('reglaments_version_check', sql`${t.version} >= 1`),
  ],
);

// Where a reglament is shown: its home space and every space it was added to, each with a group and position.
export const reglamentSpaces = pgTable(
  'reglament_spaces',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    // A non-empty group cannot be deleted (the service answers 400 GROUP_NOT_EMPTY unless told where to move them).
    reglamentGroupId: ref('reglament_group_id').notNull(),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.reglamentId, t.spaceId] }),
    foreignKey({ name: 'reglament_spaces_group_fk', columns: [t.reglamentGroupId, t.spaceId], foreignColumns: [reglamentGroups.id, reglamentGroups.spaceId] }).onDelete(
      // Checked at the end of the statement, so deleting a whole space (groups and placements cascade together) works.
      'no action',
    ),
    index('reglament_spaces_group_idx').on(t.reglamentGroupId, t.order),
    index('reglament_spaces_space_idx').on(t.spaceId),
    check('reglament_spaces_order_check', sql`${t.order} >= 0`),
  ],
);

// Users who passed the test or acknowledged a reglament without one: at most once each.
export const reglamentPasses = pgTable(
  'reglament_passes',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.reglamentId, t.userId] }), index('reglament_passes_user_idx').on(t.userId)],
);

export const reglamentFavorites = pgTable(
  'reglament_favorites',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.reglamentId, t.userId] })],
);

// Images and files uploaded into a reglament's content; the file rows go when the reglament does (by the service, with their blobs).
export const reglamentFiles = pgTable(
  'reglament_files',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['image', 'file'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.reglamentId, t.fileId] }), check('reglament_files_kind_check', sql`${t.kind} in ('image','file')`)],
);

export const reglamentQuestions = pgTable(
  'reglament_questions',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('reglament_questions_reglament_idx').on(t.reglamentId, t.order),
    check('reglament_questions_order_check', sql`${t.order} >= 0`),
    check('reglament_questions_name_check', sql`char_length(${t.name}) between 1 and 500`),
  ],
);

export const reglamentAnswers = pgTable(
  'reglament_answers',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    questionId: ref('question_id').notNull().references(() => reglamentQuestions.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isRight: boolean('is_right').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('reglament_answers_question_idx').on(t.questionId), check('reglament_answers_name_check', sql`char_length(${t.name}) between 1 and 500`)],
);

export const reglamentQuestionFiles = pgTable(
  'reglament_question_files',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    questionId: ref('question_id').notNull().references(() => reglamentQuestions.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.questionId, t.fileId] })],
);

// Explicit snapshots of the content, numbered 1, 2, … per reglament.
export const reglamentVersions = pgTable(
  'reglament_versions',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    name: text('name'),
    content: text('content').notNull(),
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('reglament_versions_number_key').on(t.reglamentId, t.number),
    check('reglament_versions_number_check', sql`${t.number} >= 1`),
    check('reglament_versions_content_size_check', sql`octet_length(${t.content}) <= ${sql.raw(String(CONTENT_LIMIT))}`),
  ],
);

// The full history of a reglament, written in the transaction of each change.
export const reglamentEvents = pgTable(
  'reglament_events',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    reglamentId: ref('reglament_id').notNull().references(() => reglaments.id, { onDelete: 'cascade' }),
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    action: text('action', { enum: REGLAMENT_EVENT_ACTIONS }).notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('reglament_events_reglament_idx').on(t.reglamentId, t.id),
    check('reglament_events_action_check', sql`${t.action} in (${sql.raw(REGLAMENT_EVENT_ACTIONS.map((a) => `'${a}'`).join(','))})`),
  ],
);
