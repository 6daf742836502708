import { sql } from 'drizzle-orm';

// The search expressions, written exactly as the GIN indexes in db/schema/tasks.ts define them
// (tasks_search_idx, task_messages_search_idx): PostgreSQL uses an expression index only for the
// same expression. 'simple' configuration: lower-cased words, no stemming, no language assumed.

export const taskVector = sql`to_tsvector('simple'::regconfig, left(coalesce(t.name, '') || ' ' || coalesce(t.description, ''), 100000))`;
export const messageVector = sql`to_tsvector('simple'::regconfig, left(m.text, 100000))`;
