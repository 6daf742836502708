import { sql } from 'drizzle-orm';

// The stored search vectors of tasks and chat messages (migration 0019), each under its GIN index
// (tasks_search_idx, task_messages_search_idx). 'simple' configuration: lower-cased words, no
// stemming, no language assumed.

export const taskVector = sql`t.search_vector`;
export const messageVector = sql`m.search_vector`;
