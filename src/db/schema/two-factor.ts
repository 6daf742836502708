import { bigint, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts } from './columns.js';
import { users } from './users.js';

/**
 * A user's TOTP secret, encrypted with the secrets key (context `totp:<userId>`). Pending until the
 * first code confirms it (`enabled_at`); `last_step` is the newest time step a code was accepted
 * for, so a code, or an older one still inside the window, cannot be used twice.
 */
export const userTwoFactor = pgTable('user_two_factor', {
  userId: ref('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  enabledAt: ts('enabled_at'),
  lastStep: bigint('last_step', { mode: 'number' }),
  createdAt: createdAt(),
});

/** Single-use recovery codes, stored as SHA-256 only (each holds 80 random bits). */
export const twoFactorRecoveryCodes = pgTable(
  'two_factor_recovery_codes',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('two_factor_recovery_codes_user_code_key').on(t.userId, t.codeHash)],
);

/**
 * The half-signed-in state between a right password and a right code: not a credential (no route
 * accepts it), single use, short-lived, and dropped after a few wrong codes.
 */
export const signInChallenges = pgTable(
  'sign_in_challenges',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    failures: integer('failures').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('sign_in_challenges_token_hash_key').on(t.tokenHash), index('sign_in_challenges_user_idx').on(t.userId)],
);
