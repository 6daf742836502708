import { sql } from 'drizzle-orm';
import { boolean, check, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';

// Users are global (one account across organizations); tenant data hangs off organization_members.
export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    name: text('name').notNull(),
    avatarFileId: ref('avatar_file_id'),
    phoneNumber: text('phone_number'),
    messengerLink: text('messenger_link'),
    jobTitle: text('job_title'),
    codeHostLink: text('code_host_link'),
    birthDate: ts('birth_date'),
    activeOrganizationId: ref('active_organization_id'),
    isOperator: boolean('is_operator').notNull().default(false),
    // The language of what the service writes to this user (email); null: not chosen, English.
    language: text('language'),
    // When the address was proven by a link emailed to it; null: not yet (no notification email goes there).
    emailVerifiedAt: ts('email_verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(sql`lower(${t.email})`),
    check('users_language_check', sql`${t.language} in ('en','ru')`),
  ],
);

/**
 * The password hash of an account made for a person who has none here (an organization import): it
 * cannot sign in (no password hashes to this) until the person sets one from the emailed claim link;
 * until then it is a pending invitation.
 */
export const INVITED_PASSWORD_HASH = '!invited';
