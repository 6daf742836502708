import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { credentialOf, resolveActor, type Actor } from '../../platform/auth.js';
import { sha256 } from '../../platform/crypto.js';
import { isEventPattern } from '../../platform/event-types.js';
import { CLOSE_SLOW_CONSUMER, CLOSE_UNAUTHORIZED, type EventHub, type Subscriber } from '../../platform/realtime.js';
import { ClientFrame } from './events.schemas.js';

// 4000 + the HTTP status an HTTP route would answer (403 TWO_FACTOR_ENROLMENT_REQUIRED), as 4401 is for 401.
const CLOSE_TWO_FACTOR_ENROLMENT = 4403;

const AUTH_TIMEOUT_MS = 10_000;
const MAX_SUBSCRIPTIONS = 50;
// Frames are handled one at a time; a client that sends faster than that is cut off rather than queued.
const MAX_FRAMES_IN_FLIGHT = 32;

// TypeBox's value checker (2 MiB of heap) is loaded by the first client frame: a server that never
// sees a WebSocket client never holds it (issue 42).
let frameChecker: typeof import('typebox/value').Value | undefined;

/**
 * One WebSocket client: authenticates (upgrade headers, or an `auth` first frame within 10 s —
 * never the URL), then handles subscribe/unsubscribe/resume/ping frames one at a time, in order.
 */
export function serveWebSocket(app: FastifyInstance, hub: EventHub, socket: WebSocket, request: FastifyRequest): void {
  let sub: Subscriber | null = null;
  let nextSubscription = 1;
  let queue = Promise.resolve();
  let unanswered = 0;
  let inFlight = 0;

  const sendJson = (frame: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };
  const fail = (code: string, message: string) => sendJson({ type: 'error', code, message });
  const close = (code: number, reason: string) => {
    // A slow client's close frame would wait behind everything it has not read: cut it off.
    if (code === CLOSE_SLOW_CONSUMER) return socket.terminate();
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
  };

  const authenticate = async (credential: string) => {
    const { authGuard: guard } = app;
    // The same budget of failed credentials per address as plain requests have.
    if (guard.lookupWait(request.ip) > 0) {
      guard.deny(request.log, 'throttled', request.ip);
      return close(CLOSE_UNAUTHORIZED, 'too many failed credentials from this address, retry later');
    }
    const leave = guard.enter(request.ip);
    let actor: Actor;
    try {
      actor = await resolveActor(app.database.db, credential, app.config.sessionTtlDays);
    } catch {
      leave();
      await guard.failed(request.ip);
      guard.deny(request.log, 'invalid_credential', request.ip);
      close(CLOSE_UNAUTHORIZED, 'unknown, expired or revoked credential');
      return;
    } finally {
      leave();
    }
    // As on every HTTP route but enrolment (platform/auth.ts): nothing until the second factor is set up.
    if (actor.twoFactorEnrolmentRequired) return close(CLOSE_TWO_FACTOR_ENROLMENT, 'this organization requires two-factor sign-in: enrol first');
    sub = {
      userId: actor.userId,
      organizationId: actor.organizationId,
      credentialHash: sha256(credential),
      cursor: 0,
      subscriptions: [],
      send: sendJson,
      control: sendJson,
      close,
      buffered: () => socket.bufferedAmount,
    };
    await hub.start(sub, null);
    if (socket.readyState !== socket.OPEN) return hub.stop(sub);
    sendJson({ type: 'ready', userId: actor.userId, organizationId: actor.organizationId, lastEventId: sub.cursor });
  };

  const handle = async (raw: string) => {
    let frame: unknown;
    try {
      frame = JSON.parse(raw);
    } catch {
      return fail('VALIDATION_FAILED', 'frames are JSON objects');
    }
    const value = (frameChecker ??= (await import('typebox/value')).Value);
    if (!value.Check(ClientFrame, frame)) return fail('VALIDATION_FAILED', 'unknown frame or bad fields (see GET /events/ws in /docs)');
    const f = frame as ClientFrame;
    if (f.type === 'ping') return sendJson({ type: 'pong' });
    if (f.type === 'auth') {
      if (sub) return fail('ALREADY_AUTHENTICATED', 'this connection is already authenticated');
      clearTimeout(authTimer);
      return authenticate(f.session);
    }
    if (!sub) return close(CLOSE_UNAUTHORIZED, 'authenticate first: {"type":"auth","session":"…"}');
    const current: Subscriber = sub;
    if (f.type === 'subscribe') {
      const bad = f.types?.find((t) => !isEventPattern(t));
      if (bad) return fail('VALIDATION_FAILED', `unknown event type "${bad}"`);
      if (current.subscriptions!.length >= MAX_SUBSCRIPTIONS) return fail('TOO_MANY_SUBSCRIPTIONS', `at most ${MAX_SUBSCRIPTIONS} subscriptions`);
      const id = nextSubscription++;
      current.subscriptions!.push({ id, spaceIds: f.spaceIds, projectIds: f.projectIds, taskIds: f.taskIds, types: f.types });
      return sendJson({ type: 'subscribed', subscriptionId: id, lastEventId: current.cursor });
    }
    if (f.type === 'unsubscribe') {
      current.subscriptions = f.subscriptionId === undefined ? [] : current.subscriptions!.filter((s) => s.id !== f.subscriptionId);
      return sendJson({ type: 'unsubscribed', subscriptionId: f.subscriptionId ?? null });
    }
    // resume: replay what this connection's subscriptions match after lastEventId, then go on live
    // (or, past the replay window, `resync` alone: the client reloads and continues from now).
    if ((await hub.start(current, f.lastEventId)) === 'resumed') sendJson({ type: 'resumed', lastEventId: f.lastEventId });
  };

  const authTimer = setTimeout(() => {
    if (!sub) close(CLOSE_UNAUTHORIZED, 'no credential within 10 s');
  }, AUTH_TIMEOUT_MS);

  // Protocol-level heartbeat: a client that leaves two pings in a row unanswered is dropped. The
  // check waits for this turn's I/O (setImmediate): when the event loop was busy past an interval,
  // a pong already on the socket still counts instead of getting a live client cut off.
  const heartbeat = setInterval(() => {
    setImmediate(() => {
      if (unanswered >= 2) return socket.terminate();
      unanswered++;
      if (socket.readyState === socket.OPEN) socket.ping();
    });
  }, app.config.realtimeHeartbeatMs);
  socket.on('pong', () => (unanswered = 0));

  socket.on('message', (data, isBinary) => {
    unanswered = 0;
    if (isBinary) return fail('VALIDATION_FAILED', 'frames are JSON text');
    if (inFlight >= MAX_FRAMES_IN_FLIGHT) return close(1008, 'too many frames in flight');
    inFlight++;
    const text = data.toString();
    queue = queue
      .then(() => handle(text))
      .catch((err: unknown) => {
        request.log.error({ err }, 'real-time frame failed');
        fail('INTERNAL', 'the frame could not be handled');
      })
      .finally(() => inFlight--);
  });
  socket.on('close', () => {
    clearTimeout(authTimer);
    clearInterval(heartbeat);
    if (sub) hub.stop(sub);
  });
  socket.on('error', () => socket.terminate());

  const credential = credentialOf(request);
  if (credential) {
    clearTimeout(authTimer);
    queue = queue.then(() => authenticate(credential));
  }
}
