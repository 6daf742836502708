import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

/**
 * Answers kept for retried POSTs that carry an `Idempotency-Key` (platform/idempotency.ts), per
 * credential. In the database rather than in memory so that a retry reaching another instance
 * replays the same answer. Rows older than the retention are ignored and purged by a job.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    // SHA-256 of the credential: the scope of a key, never the credential itself.
    credentialHash: text('credential_hash').notNull(),
    key: text('key').notNull(),
    // SHA-256 of method, URL and body: the same key with another request is refused.
    fingerprint: text('fingerprint').notNull(),
    // Null while the first request still runs (a concurrent duplicate then answers 409).
    status: smallint('status'),
    // Encrypted with a key derived from the credential, so the table alone reveals no answer
    // (some answers carry secrets shown once, such as a new API token).
    response: text('response'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.credentialHash, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_key_check', sql`char_length(${t.key}) between 1 and 255`),
    check('idempotency_keys_status_check', sql`${t.status} is null or ${t.status} between 200 and 499`),
  ],
);
