import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { ref, ts } from './columns.js';
import { organizations } from './organizations.js';

/**
 * The change log: one row per committed change, written in the change's transaction. `id` grows by
 * one per organization without gaps (taken from event_counters under its row lock, which also makes
 * commit order equal id order), so a client that knows the last id it saw can resume exactly.
 * Resource ids are plain numbers, not foreign keys: the log outlives what it describes.
 */
export const events = pgTable(
  'events',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    id: bigint('id', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    spaceId: ref('space_id'),
    projectId: ref('project_id'),
    taskId: ref('task_id'),
    actorId: ref('actor_id'),
    // Set for events meant for one user only (notification.*): nobody else receives them.
    userId: ref('user_id'),
    // Only the space's editors and admins may receive it (a draft reglament's changes), decided
    // when it was written so publishing or deleting the draft later does not open it to readers.
    editorsOnly: boolean('editors_only').notNull().default(false),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().default(sql`clock_timestamp()`),
    payload: jsonb('payload').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] }), index('events_at_idx').on(t.at)],
);

/** The last event id of each organization; its row lock orders the organization's writers. */
export const eventCounters = pgTable('event_counters', {
  organizationId: ref('organization_id').primaryKey().references(() => organizations.id, { onDelete: 'cascade' }),
  lastId: bigint('last_id', { mode: 'number' }).notNull(),
  // Bumped when a webhook or automation rule of the organization is enabled (migration 0022, platform/quiet-organizations.ts).
  listenersVersion: bigint('listeners_version', { mode: 'number' }).notNull().default(0),
});

/** When each periodic job last ran, so that several instances run it once per period between them. */
export const scheduledJobs = pgTable('scheduled_jobs', {
  name: text('name').primaryKey(),
  lastRunAt: ts('last_run_at'),
});
