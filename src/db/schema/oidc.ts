import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts } from './columns.js';
import { users } from './users.js';

/**
 * Which account an OpenID Connect subject signs in to. Keyed by (issuer, subject), never by email:
 * the provider's email can change or be unverified, its subject cannot.
 */
export const oidcIdentities = pgTable(
  'oidc_identities',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    createdAt: createdAt(),
    lastSignInAt: ts('last_sign_in_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oidc_identities_issuer_subject_key').on(t.issuer, t.subject), index('oidc_identities_user_idx').on(t.userId)],
);
