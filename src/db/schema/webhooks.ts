import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

/**
 * An outgoing webhook of an organization, optionally narrowed to a space or a project. The secret is
 * kept as given: HMAC signing needs it, so it cannot be hashed; it is never returned after creation.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').references(() => spaces.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    // Event types ("task.created", "task.*" or "*").
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    // Consecutive failed attempts; reset by a success.
    failureCount: integer('failure_count').notNull().default(0),
    lastDeliveryAt: ts('last_delivery_at'),
    disabledReason: text('disabled_reason'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_org_idx').on(t.organizationId).where(sql`${t.enabled}`)],
);

/**
 * One event to send to one webhook: a row of the durable queue. `body` is the exact bytes sent, so
 * every retry carries the same id, body and (recomputed over them) a valid signature.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    webhookId: ref('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: ref('event_id').notNull(),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms'),
    error: text('error'),
    // Every attempt: [{attempt, at, responseStatus, durationMs, error}].
    attemptLog: jsonb('attempt_log').notNull().default(sql`'[]'::jsonb`),
    nextRetryAt: ts('next_retry_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextRetryAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending','succeeded','failed')`),
  ],
);
