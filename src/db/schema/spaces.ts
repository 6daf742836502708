import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
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
    customBackgroundFileId: ref('custom_background_file_id'),
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
    spaceGroupId: ref('space_group_id'),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.userId] }), index('space_user_settings_user_idx').on(t.userId)],
);
