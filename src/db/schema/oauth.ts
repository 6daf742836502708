import { index, jsonb, pgTable, primaryKey, text, check } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, ref, ts } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

/**
 * The OAuth authorization server's state (oidc-provider's storage adapter, src/modules/oauth):
 * registered clients, grants, interactions, sessions, authorization codes, access and refresh
 * tokens, one row per (model, id). Rows whose id is a bearer secret (codes, tokens, sessions,
 * interactions) are keyed by the SHA-256 of the id, never the id itself; clients and grants keep
 * theirs, which other rows point at. A row tied to a user names the user and the organization it
 * acts in, so that deleting either ends its grants and tokens, and Connected apps can list them.
 */
export const oauthRecords = pgTable(
  'oauth_records',
  {
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    userId: ref('user_id').references(() => users.id, { onDelete: 'cascade' }),
    organizationId: ref('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at'),
    consumedAt: ts('consumed_at'),
    /** Grants only: the last time one of its access tokens was used at /mcp (Connected apps shows it). */
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'oauth_records_pkey', columns: [t.model, t.id] }),
    index('oauth_records_grant_idx').on(t.grantId),
    index('oauth_records_uid_idx').on(t.uid),
    index('oauth_records_user_idx').on(t.userId, t.model),
    index('oauth_records_expires_idx').on(t.expiresAt),
    check('oauth_records_user_org_check', sql`(${t.userId} is null) = (${t.organizationId} is null)`),
  ],
);

/**
 * The authorization server's signing keys (JWK, private), generated once by whichever instance
 * first needs one and stored encrypted with SECRETS_KEY (platform/secrets.ts), so every instance
 * signs with the same key and a database dump alone does not reveal it.
 */
export const oauthKeys = pgTable('oauth_keys', {
  kid: text('kid').primaryKey(),
  encrypted: text('encrypted').notNull(),
  createdAt: createdAt(),
});
