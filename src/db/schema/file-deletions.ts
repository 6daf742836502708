import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns.js';

/**
 * Stored objects whose files rows are gone, waiting to be removed from storage. A row is written in
 * the same transaction that deletes the file, so a removal that fails after commit (a bucket that
 * does not answer) is not forgotten: the `files.deletes` job retries it until storage answers.
 */
export const fileDeletions = pgTable(
  'file_deletions',
  {
    key: uuid('key').primaryKey(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [index('file_deletions_due_idx').on(t.nextAttemptAt)],
);
