import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { files } from './files.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export const SPACE_ROLES = ['admin', 'editor', 'member', 'reader'] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];

export const spaces = pgTable(
  'spaces',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    icon: text('icon'),
    iconColor: text('icon_color'),
    background: text('background'),
    customBackgroundFileId: ref('custom_background_file_id').references(() => files.id, { onDelete: 'set null' }),
    archivedAt: ts('archived_at'),
    introReglamentId: ref('intro_reglament_id'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('spaces_org_idx').on(t.organizationId)],
);

export const spaceMembers = pgTable(
  'space_members',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: SPACE_ROLES }).notNull(),
    invitedById: ref('invited_by_id').references(() => users.id, { onDelete: 'set null' }),
    joinedAt: createdAt(),
  },
  (t) => [
    uniqueIndex('space_members_space_user_key').on(t.spaceId, t.userId),
    index('space_members_user_idx').on(t.userId, t.organizationId),
    check('space_members_role_check', sql`${t.role} in ('admin','editor','member','reader')`),
  ],
);

// The caller's own view of a space: sidebar position, favourite flag and folder.
export const spaceUserSettings = pgTable(
  'space_user_settings',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    order: integer('order').notNull().default(0),
    favorite: boolean('favorite').notNull().default(false),
    // A deleted folder leaves its spaces ungrouped (the service also renumbers them).
    spaceGroupId: ref('space_group_id').references((): AnyPgColumn => spaceGroups.id, { onDelete: 'set null' }),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.userId] }), index('space_user_settings_user_idx').on(t.userId)],
);

// The caller's sidebar folders of spaces.
export const spaceGroups = pgTable(
  'space_groups',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    collapsed: boolean('collapsed').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('space_groups_user_idx').on(t.userId, t.organizationId)],
);

// One invite link per space: regenerating replaces its token.
export const inviteLinks = pgTable(
  'invite_links',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    role: text('role', { enum: SPACE_ROLES }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdById: ref('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('invite_links_space_key').on(t.spaceId),
    uniqueIndex('invite_links_token_key').on(t.token),
    check('invite_links_role_check', sql`${t.role} in ('editor','member','reader')`),
  ],
);
