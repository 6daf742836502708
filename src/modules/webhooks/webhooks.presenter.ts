import type { webhookDeliveries, webhooks } from '../../db/schema/webhooks.js';
import { iso } from '../../platform/http.js';
import type { Attempt, WebhookDeliveryDto, WebhookDto } from './webhooks.schemas.js';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The secret never leaves through this form: only the create answer carries it. */
export const presentWebhook = (w: WebhookRow): WebhookDto => ({
  id: w.id,
  url: w.url,
  events: w.events,
  spaceId: w.spaceId,
  projectId: w.projectId,
  enabled: w.enabled,
  secretSet: true,
  failureCount: w.failureCount,
  lastDeliveryAt: iso(w.lastDeliveryAt),
  disabledReason: w.disabledReason,
  creatorId: w.creatorId,
  createdAt: iso(w.createdAt)!,
  updatedAt: iso(w.updatedAt)!,
});

export const presentDelivery = (d: DeliveryRow): WebhookDeliveryDto => ({
  id: d.id,
  webhookId: d.webhookId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  responseStatus: d.responseStatus,
  durationMs: d.durationMs,
  error: d.error,
  nextRetryAt: d.status === 'pending' ? iso(d.nextRetryAt) : null,
  attemptLog: (d.attemptLog as Attempt[]).map((a) => ({
    attempt: a.attempt,
    at: a.at,
    responseStatus: a.responseStatus ?? null,
    durationMs: a.durationMs ?? null,
    error: a.error ?? null,
  })),
  createdAt: iso(d.createdAt)!,
  updatedAt: iso(d.updatedAt)!,
});
