import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

/**
 * Rate-limit counters shared by every instance on one PostgreSQL database (platform/rate-limit.ts):
 * one row per limited key and window. The migration makes the table UNLOGGED: counters are
 * rewritten on almost every request, and losing them in a crash only restarts the windows.
 * No index on reset_at: updates that change only the count then stay HOT (no index writes); the
 * purge scans a table that holds only the keys of the last window.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  resetAt: ts('reset_at').notNull(),
});
