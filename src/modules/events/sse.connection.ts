import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, credentialOf } from '../../platform/auth.js';
import { sha256 } from '../../platform/crypto.js';
import type { EventEnvelope } from '../../platform/events.js';
import { CLOSE_SLOW_CONSUMER, type EventHub, type Subscriber, type Subscription } from '../../platform/realtime.js';

const ids = (csv: string | undefined) => (csv ? csv.split(',').map(Number) : undefined);

/**
 * One Server-Sent Events client: the request's credential and query filters; `id:` carries the
 * event id so the browser's automatic reconnect sends Last-Event-ID and resumes exactly.
 */
export async function serveEventStream(
  app: FastifyInstance,
  hub: EventHub,
  request: FastifyRequest,
  reply: FastifyReply,
  filters: Omit<Subscription, 'id'>,
  lastEventId: number | null,
): Promise<void> {
  const actor = actorOf(request);
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  const write = (chunk: string) => {
    if (!res.destroyed) res.write(chunk);
  };
  const sub: Subscriber = {
    userId: actor.userId,
    organizationId: actor.organizationId,
    credentialHash: sha256(credentialOf(request)!),
    cursor: 0,
    subscriptions: [{ id: 1, ...filters }],
    send: (e: EventEnvelope) => write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
    control: (frame) => write(`event: ${String(frame.type)}\ndata: ${JSON.stringify(frame)}\n\n`),
    // SSE has no close codes: the reason goes out as an event, then the stream ends.
    close: (code, reason) => {
      // A slow client's buffer is dropped, not flushed: it is what must not grow.
      if (code === CLOSE_SLOW_CONSUMER) return void res.destroy();
      write(`event: error\ndata: ${JSON.stringify({ type: 'error', code, message: reason })}\n\n`);
      res.end();
    },
    buffered: () => res.writableLength,
  };
  const heartbeat = setInterval(() => write(': heartbeat\n\n'), app.config.realtimeHeartbeatMs);
  res.on('close', () => {
    clearInterval(heartbeat);
    hub.stop(sub);
  });
  // Tells the client how long to wait before reconnecting, and that the stream is live.
  write('retry: 2000\n\n');
  await hub.start(sub, lastEventId);
  if (res.destroyed) return hub.stop(sub);
  write(`event: ready\ndata: ${JSON.stringify({ type: 'ready', lastEventId: sub.cursor })}\n\n`);
}

export function sseFilters(query: { spaceIds?: string; projectIds?: string; taskIds?: string; types?: string }): Omit<Subscription, 'id'> {
  return {
    spaceIds: ids(query.spaceIds),
    projectIds: ids(query.projectIds),
    taskIds: ids(query.taskIds),
    types: query.types ? query.types.split(',').map((t) => t.trim()).filter(Boolean) : undefined,
  };
}
