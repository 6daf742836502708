import { Type, type Static } from 'typebox';

const Ids = Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 1000 });
const Types = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: 'event types: exact, `prefix.*` or `*`' });

const Filters = {
  spaceIds: Type.Optional(Ids),
  projectIds: Type.Optional(Ids),
  taskIds: Type.Optional(Ids),
  types: Type.Optional(Types),
};

/** Frames a WebSocket client may send (routes.md "Real-time events"). */
export const ClientFrame = Type.Union([
  Type.Object({ type: Type.Literal('auth'), session: Type.String({ minLength: 1, maxLength: 200 }) }),
  Type.Object({ type: Type.Literal('subscribe'), ...Filters }),
  Type.Object({ type: Type.Literal('unsubscribe'), subscriptionId: Type.Optional(Type.Integer({ minimum: 1 })) }),
  Type.Object({ type: Type.Literal('resume'), lastEventId: Type.Integer({ minimum: 0 }) }),
  Type.Object({ type: Type.Literal('ping') }),
]);
export type ClientFrame = Static<typeof ClientFrame>;

const csvIds = Type.String({ pattern: '^\\d{1,18}(,\\d{1,18}){0,999}$', description: 'comma-separated ids' });

export const SseQuery = Type.Object({
  spaceIds: Type.Optional(csvIds),
  projectIds: Type.Optional(csvIds),
  taskIds: Type.Optional(csvIds),
  types: Type.Optional(Type.String({ maxLength: 2000, description: 'comma-separated event types: exact, `prefix.*` or `*`' })),
  lastEventId: Type.Optional(Type.Integer({ minimum: 0, description: 'resume point for the first connection (reconnects send Last-Event-ID)' })),
});
export type SseQuery = Static<typeof SseQuery>;

export const SseHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: '^\\d{1,18}$' })),
});

export const EventEnvelopeSchema = Type.Object(
  {
    id: Type.Integer({ description: 'grows by one per organization' }),
    type: Type.String(),
    organizationId: Type.Integer(),
    spaceId: Type.Union([Type.Integer(), Type.Null()]),
    projectId: Type.Union([Type.Integer(), Type.Null()]),
    taskId: Type.Union([Type.Integer(), Type.Null()]),
    actorId: Type.Union([Type.Integer(), Type.Null()], { description: 'null when automation or a scheduled job acted' }),
    at: Type.String({ format: 'date-time' }),
    payload: Type.Unknown(),
  },
  { $id: 'EventEnvelope', description: 'One committed change (routes.md "Real-time events"); also the body of a webhook delivery' },
);
