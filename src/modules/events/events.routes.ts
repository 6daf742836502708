import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { AppError } from '../../platform/errors.js';
import { isEventPattern } from '../../platform/event-types.js';
import { serveEventStream, sseFilters } from './sse.connection.js';
import { serveWebSocket } from './ws.connection.js';
import * as S from './events.schemas.js';
import { registerEventJobs } from './events.jobs.js';
import { eventPayloadSchemas } from './events.catalogue.js';
import { documentWebhooks, type DocumentedWebhook } from '../../platform/openapi.js';
import { EVENT_TYPES } from '../../platform/event-types.js';

const tags = ['Real-time events'];

const FRAMES = `Client frames (JSON text): \`{"type":"auth","session":"…"}\` (first frame within 10 s when the upgrade carried no credential header),
\`{"type":"subscribe","spaceIds"?,"projectIds"?,"taskIds"?,"types"?}\` (each adds a subscription; an event is sent when it matches any; before the first, nothing is sent),
\`{"type":"unsubscribe","subscriptionId"?}\` (none = all), \`{"type":"resume","lastEventId":n}\` (replays from n+1 within the replay window, else sends resync), \`{"type":"ping"}\`.
Server frames: event envelopes (\`EventEnvelope\`, in id order, each once), \`ready\`, \`subscribed\`, \`unsubscribed\`, \`resumed\`, \`resync {lastEventId}\` (reload state, then continue), \`pong\`, \`error {code, message}\`.
Close codes: 4401 bad, revoked or removed credential/membership; 4008 the client fell too far behind (reconnect and resume). Protocol pings every 25 s.
An event is sent only if the user may read its resource at the moment of delivery; notification.* only to its addressee.`;

/** One envelope schema per event type: what webhook receivers and real-time clients get. */
function eventWebhooks(): DocumentedWebhook[] {
  const payloads = eventPayloadSchemas();
  return EVENT_TYPES.map((type) => ({
    name: type,
    summary: `${type} (also sent on GET /events and /events/ws)`,
    // The shared envelope narrowed to this type: the document refers to EventEnvelope instead of copying it.
    schema: Type.Intersect([S.EventEnvelopeSchema, Type.Object({ type: Type.Literal(type), payload: payloads[type] })]),
  }));
}

export default async function eventRoutes(app: App): Promise<void> {
  app.addSchema(S.EventEnvelopeSchema);
  const hub = app.realtime;
  registerEventJobs(app);
  documentWebhooks(eventWebhooks);

  app.get(
    '/events/ws',
    {
      websocket: true,
      config: { deferredCredential: true },
      schema: {
        tags,
        summary: 'Real-time events over WebSocket',
        description: FRAMES,
        response: { 101: { description: 'Switching Protocols: the connection carries the frames described above' } },
      },
    },
    (socket, request) => serveWebSocket(app, hub, socket, request),
  );

  app.get(
    '/events',
    {
      schema: {
        tags,
        summary: 'Real-time events as Server-Sent Events',
        description:
          'The same events as the WebSocket, filtered by the query (absent = everything the caller may read). Each event: `id:` (its id), `event:` (its type), `data:` (the EventEnvelope). Reconnects send `Last-Event-ID` and resume; past the replay window an `event: resync` comes first. A `: heartbeat` comment every 25 s.',
        querystring: S.SseQuery,
        headers: S.SseHeaders,
        response: { 200: { description: 'text/event-stream of EventEnvelope', content: { 'text/event-stream': { schema: Type.String() } } } },
      },
    },
    async (request, reply) => {
      const filters = sseFilters(request.query);
      const bad = filters.types?.find((t) => !isEventPattern(t));
      if (bad) throw new AppError('VALIDATION_FAILED', `unknown event type "${bad}"`);
      const header = request.headers['last-event-id'];
      const resume = typeof header === 'string' && header ? Number(header) : (request.query.lastEventId ?? null);
      await serveEventStream(app, hub, request, reply, filters, resume);
    },
  );
}
