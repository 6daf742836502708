import { bigint, boolean, check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, id, ref, ts } from './columns.js';
import { users } from './users.js';

/**
 * A user's WebAuthn credentials. `credential_id` is unique across users: one credential signs in to
 * one account. The public key is the COSE key as base64url; `counter` is the authenticator's signature
 * counter (0 for authenticators that keep none, such as synced passkeys).
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    credentialId: text('credential_id').notNull(),
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array().notNull().default(sql`'{}'::text[]`),
    backedUp: boolean('backed_up').notNull().default(false),
    deviceType: text('device_type').notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('passkeys_credential_id_key').on(t.credentialId),
    index('passkeys_user_idx').on(t.userId),
    check('passkeys_counter_check', sql`${t.counter} >= 0`),
    check('passkeys_device_type_check', sql`${t.deviceType} in ('singleDevice', 'multiDevice')`),
  ],
);

/**
 * WebAuthn challenges handed out and not yet answered: single use (deleted by the answer, right or
 * wrong), minutes long. Keyed by the SHA-256 of a random id the client sends back. A registration's
 * and a second factor's challenge belong to a user; a passkey sign-in's to nobody yet.
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose').notNull(),
    userId: ref('user_id').references(() => users.id, { onDelete: 'cascade' }),
    challenge: text('challenge').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('passkey_challenges_token_hash_key').on(t.tokenHash),
    index('passkey_challenges_expires_idx').on(t.expiresAt),
    check('passkey_challenges_purpose_check', sql`${t.purpose} in ('registration', 'sign-in', 'second-factor')`),
    check('passkey_challenges_user_check', sql`(${t.purpose} = 'sign-in') = (${t.userId} is null)`),
  ],
);
