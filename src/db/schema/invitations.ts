import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

/**
 * An invitation to a space sent by email: only the SHA-256 of its link's token is kept. A row stays
 * after it is answered (accepted or revoked), so an old link can say what became of it; resending
 * replaces the token and the expiry. One open invitation (neither accepted nor revoked) per address
 * and space; `email` is stored lower-cased.
 */
export const spaceInvitations = pgTable(
  'space_invitations',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['editor', 'member', 'reader'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedById: ref('invited_by_id').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: ts('expires_at').notNull(),
    sentAt: ts('sent_at').notNull().defaultNow(),
    acceptedAt: ts('accepted_at'),
    acceptedById: ref('accepted_by_id').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('space_invitations_token_hash_key').on(t.tokenHash),
    uniqueIndex('space_invitations_open_key').on(t.spaceId, t.email).where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
    index('space_invitations_org_idx').on(t.organizationId),
    check('space_invitations_role_check', sql`${t.role} in ('editor','member','reader')`),
    check('space_invitations_email_lower_check', sql`${t.email} = lower(${t.email})`),
    check('space_invitations_answered_once_check', sql`${t.acceptedAt} is null or ${t.revokedAt} is null`),
  ],
);
