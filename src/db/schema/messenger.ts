import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { users } from './users.js';

// Telegram chat and user ids exceed 32 bits (up to 52): bigint, read as numbers.
const chatRef = (name: string) => bigint(name, { mode: 'number' });

/**
 * A user's messenger connection (routes.md "Personal messenger integration"): one per person, for
 * every organization they belong to. `pending` holds a single-use code until `/start <code>` (or
 * bot-login) binds a private chat; `inactive` once the bot was blocked there.
 */
export const messengerIntegrations = pgTable(
  'messenger_integrations',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'active', 'inactive'] }).notNull().default('pending'),
    code: text('code'),
    codeExpiresAt: ts('code_expires_at'),
    chatId: chatRef('chat_id'),
    messengerUserId: chatRef('messenger_user_id'),
    username: text('username'),
    notify: boolean('notify').notNull().default(true),
    connectedAt: ts('connected_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('messenger_integrations_user_key').on(t.userId),
    uniqueIndex('messenger_integrations_code_key').on(t.code),
    index('messenger_integrations_chat_idx').on(t.chatId),
    check('messenger_integrations_status_check', sql`${t.status} in ('pending','active','inactive')`),
  ],
);

/** A project's group chat, told the chosen event types of the project. */
export const projectMessengerIntegrations = pgTable(
  'project_messenger_integrations',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'active', 'inactive'] }).notNull().default('pending'),
    code: text('code'),
    codeExpiresAt: ts('code_expires_at'),
    chatId: chatRef('chat_id'),
    chatTitle: text('chat_title'),
    events: text('events').array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean('enabled').notNull().default(true),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('project_messenger_integrations_project_key').on(t.projectId),
    uniqueIndex('project_messenger_integrations_code_key').on(t.code),
    index('project_messenger_integrations_org_idx').on(t.organizationId).where(sql`${t.status} = 'active' and ${t.enabled}`),
    check('project_messenger_integrations_status_check', sql`${t.status} in ('pending','active','inactive')`),
  ],
);

/**
 * Messages for the bot to send, queued in the transaction of their cause (a notification, a
 * project event, the bot's own answer to an update), sent in id order per chat by whichever
 * instance claims them. `notification_id` is unique: a notification is queued at most once. Once
 * sent, (chat, message id) is how a reply finds its task.
 */
export const messengerOutbox = pgTable(
  'messenger_outbox',
  {
    id: id(),
    organizationId: ref('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    chatId: chatRef('chat_id').notNull(),
    text: text('text').notNull(),
    notificationId: ref('notification_id'),
    taskId: ref('task_id'),
    userId: ref('user_id').references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'sent', 'failed', 'dropped'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    sentMessageId: chatRef('sent_message_id'),
    sentAt: ts('sent_at'),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('messenger_outbox_notification_key').on(t.notificationId),
    index('messenger_outbox_pending_idx').on(t.chatId, t.id).where(sql`${t.status} = 'pending'`),
    index('messenger_outbox_sent_idx').on(t.chatId, t.sentMessageId).where(sql`${t.sentMessageId} is not null`),
    check('messenger_outbox_status_check', sql`${t.status} in ('pending','sent','failed','dropped')`),
  ],
);

/**
 * The bot's poller, one row per bot (keyed by a digest of its token, so a new token starts from its
 * own offset): the next update offset (moved in the transaction that handled the update) and the
 * lease that lets one instance poll at a time.
 */
export const messengerPoller = pgTable('messenger_poller', {
  bot: text('bot').primaryKey(),
  updateOffset: chatRef('update_offset').notNull().default(0),
  owner: text('owner'),
  leaseUntil: ts('lease_until'),
  botUsername: text('bot_username'),
});
