import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, ref } from './columns.js';
import { files } from './files.js';
import { organizations } from './organizations.js';
import { taskMessages } from './tasks.js';
import { users } from './users.js';

// Task chat extras (task_messages itself lives in tasks.ts). Every row dies with its message.

/** One reaction per user, emoji and message: the primary key makes a repeated add a no-op. */
export const messageReactions = pgTable(
  'message_reactions',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    messageId: ref('message_id').notNull().references(() => taskMessages.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    emoji: text('emoji').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.emoji, t.userId] }), check('message_reactions_emoji_check', sql`char_length(${t.emoji}) between 1 and 32`)],
);

/** Files attached to a message, in the order they were sent. */
export const messageAttachments = pgTable(
  'message_attachments',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    messageId: ref('message_id').notNull().references(() => taskMessages.id, { onDelete: 'cascade' }),
    fileId: ref('file_id').notNull().references(() => files.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.fileId] }), index('message_attachments_file_idx').on(t.fileId)],
);

/** Users a message mentions (`@[userId]`), kept for notifications; only members of the task's spaces. */
export const messageMentions = pgTable(
  'message_mentions',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    messageId: ref('message_id').notNull().references(() => taskMessages.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId] }), index('message_mentions_user_idx').on(t.userId, t.createdAt)],
);
