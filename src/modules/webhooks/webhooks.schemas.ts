import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { Paging } from '../../platform/http.js';

const EventPattern = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'an event type (task.created), a prefix (task.*) or * for every type',
});

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    spaceId: Nullable(Type.Integer()),
    projectId: Nullable(Type.Integer()),
    enabled: Type.Boolean(),
    secretSet: Type.Boolean({ description: 'always true: the secret is write-only and shown only when created' }),
    failureCount: Type.Integer({ description: 'failed attempts since the last success' }),
    lastDeliveryAt: Nullable(DateTime()),
    disabledReason: Nullable(Type.String({ description: 'why the service disabled the webhook; null when enabled' })),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Webhook' },
);
export type WebhookDto = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Object(
  { ...WebhookSchema.properties, secret: Type.String({ description: 'the signing secret, shown only in this answer' }) },
  { $id: 'CreatedWebhook' },
);

export const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  at: DateTime(),
  responseStatus: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});
export type Attempt = Static<typeof AttemptSchema>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    webhookId: Type.Integer(),
    eventId: Type.Integer(),
    eventType: Type.String(),
    status: DeliveryStatus,
    attempts: Type.Integer(),
    responseStatus: Nullable(Type.Integer({ description: 'HTTP status of the last attempt' })),
    durationMs: Nullable(Type.Integer({ description: 'duration of the last attempt' })),
    error: Nullable(Type.String({ description: 'why the last attempt failed' })),
    nextRetryAt: Nullable(DateTime('when the next attempt is due; null once finished or while the webhook is disabled')),
    attemptLog: Type.Array(AttemptSchema),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDeliveryDto = Static<typeof WebhookDeliverySchema>;

const Secret = Type.String({
  minLength: 16,
  maxLength: 200,
  description: 'signing secret: whsec_<base64 key> (Standard Webhooks), or any other string used as its UTF-8 bytes; generated when omitted',
});
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'https URL of the receiver (http only for allow-listed hosts)' });
const Events = Type.Array(EventPattern, { minItems: 1, maxItems: 100, uniqueItems: true });

export const WebhookParams = Type.Object({ webhookId: Id() });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    spaceId: Type.Optional(Nullable(Id('only events of this space'))),
    projectId: Type.Optional(Nullable(Id('only events of this project'))),
    secret: Type.Optional(Secret),
  },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean({ description: 'enabling again resumes the pending deliveries and clears the failure count' })),
    secret: Type.Optional(Secret),
  },
  { minProperties: 1 },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = Type.Object({ spaceId: Type.Optional(Id('only webhooks of this space')), ...Paging().properties });

export const ListDeliveriesQuery = Type.Object({ status: Type.Optional(DeliveryStatus), ...Paging().properties });
