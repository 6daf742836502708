import { sql } from 'drizzle-orm';
import { boolean, check, date, index, integer, numeric, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { users } from './users.js';

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name'),
  avatarFileId: ref('avatar_file_id'),
  ownerId: ref('owner_id').notNull().references(() => users.id, { onDelete: 'restrict' }),
  aiEnabled: boolean('ai_enabled').notNull().default(false),
  // Members signing in with a password must have two-factor sign-in; until they enrol they can do nothing else.
  twoFactorRequired: boolean('two_factor_required').notNull().default(false),
  // Admins may close the MCP endpoint (AI agents) for their organization.
  mcpEnabled: boolean('mcp_enabled').notNull().default(true),
  availableUsersCount: integer('available_users_count').notNull(),
  licenseEndDate: ts('license_end_date').notNull(),
  trialEndDate: ts('trial_end_date').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    active: boolean('active').notNull().default(false),
    price: numeric('price', { precision: 12, scale: 2, mode: 'number' }).notNull().default(0),
    usersCount: integer('users_count').notNull(),
    // Billing interval in months.
    interval: integer('interval').notNull().default(1),
    datePay: ts('date_pay'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('subscriptions_org_idx').on(t.organizationId)],
);

export const organizationMembers = pgTable(
  'organization_members',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    active: boolean('active').notNull().default(true),
    // Removed members keep their row so old tasks can still show who did what.
    deletedAt: ts('deleted_at'),
    lastActivityAt: ts('last_activity_at'),
    joinedAt: createdAt(),
  },
  (t) => [
    uniqueIndex('organization_members_org_user_key').on(t.organizationId, t.userId),
    index('organization_members_user_idx').on(t.userId),
    check('organization_members_role_check', sql`${t.role} in ('owner','admin','member')`),
  ],
);

// One row per member per day with any authenticated request: the basis of "active days".
export const userActivityDays = pgTable(
  'user_activity_days',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId, t.day] })],
);
