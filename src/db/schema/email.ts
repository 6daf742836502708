import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

/**
 * Outgoing email, queued in the transaction of the change that causes it and sent after commit by
 * the email job (platform/queue.ts claims, leases and retries). `message_id` is the Message-ID
 * header: every attempt of one row carries the same one. The bodies are cleared once the message
 * is settled, so a link with a token in it does not outlive its delivery in the table.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: id(),
    messageId: text('message_id').notNull(),
    organizationId: ref('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body'),
    htmlBody: text('html_body'),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    status: text('status', { enum: ['pending', 'sent', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').defaultNow(),
    lastError: text('last_error'),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('email_outbox_message_id_key').on(t.messageId),
    index('email_outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('email_outbox_user_idx').on(t.userId),
    check('email_outbox_status_check', sql`${t.status} in ('pending','sent','failed')`),
  ],
);

/**
 * A password-reset link: only the SHA-256 of its token is kept. `password_fingerprint` is a hash of
 * the password hash when it was issued, so a link issued before a later password change no longer works.
 */
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    passwordFingerprint: text('password_fingerprint').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('password_reset_tokens_token_hash_key').on(t.tokenHash), index('password_reset_tokens_user_idx').on(t.userId)],
);

/**
 * How a user wants notification emails: off, immediately, an hourly digest, or a daily digest at a
 * local hour. No row: the default (a daily digest at 08:00 UTC). `sent_through` is the last
 * notification id already emailed; `last_sent_at` paces the digests.
 */
export const notificationEmailSettings = pgTable(
  'notification_email_settings',
  {
    userId: ref('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: ['off', 'immediate', 'hourly', 'daily'] }).notNull().default('daily'),
    hour: integer('hour').notNull().default(8),
    timeZone: text('time_zone').notNull().default('UTC'),
    sentThrough: ref('sent_through').notNull().default(0),
    lastSentAt: ts('last_sent_at'),
    // Mentions go out at once even when the rest waits for a digest; `mentions_sent_through` is the
    // last mention already mailed that way, so the digest leaves it out.
    mentionsImmediately: boolean('mentions_immediately').notNull().default(false),
    mentionsSentThrough: ref('mentions_sent_through').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('notification_email_settings_mode_check', sql`${t.mode} in ('off','immediate','hourly','daily')`),
    check('notification_email_settings_hour_check', sql`${t.hour} between 0 and 23`),
  ],
);

/** A link that proves an address belongs to its user (sign-up); only the token's hash is kept. */
export const emailVerifications = pgTable(
  'email_verifications',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('email_verifications_token_hash_key').on(t.tokenHash), index('email_verifications_user_idx').on(t.userId)],
);
