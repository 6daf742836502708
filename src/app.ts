import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import { openDatabase, type Database, type OpenOptions } from './db/client.js';
import { logFailure, registerErrorHandling } from './platform/errors.js';
import { registerAuthentication } from './platform/auth.js';
import { registerOpenApi } from './platform/openapi.js';
import { registerValidation } from './platform/validation.js';
import { registerRateLimit, throttledWarn } from './platform/rate-limit.js';
import { authGuardFor, type AuthGuard } from './platform/brute-force.js';
import { registerIdempotency } from './platform/idempotency.js';
import { FileStore } from './platform/files.js';
import { SecretBox } from './platform/secrets.js';
import { registerHygiene } from './platform/hygiene.js';
import { EventBus } from './platform/event-bus.js';
import { EventHub } from './platform/realtime.js';
import { ReadCache, registerReadCache } from './platform/read-cache.js';
import { startJobs, stopJobs } from './platform/jobs.js';
import { registerEmbeddedMaintenance } from './db/maintenance.js';
import { cachedSerializerFactory } from './platform/compiled-schemas.js';
import { registerMetrics } from './platform/metrics.js';
import { modules } from './modules/index.js';
import { registerWebClient } from './platform/web-client.js';
import { VERSION } from './version.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    files: FileStore;
    secrets: SecretBox;
    events: EventBus;
    realtime: EventHub;
    readCache: ReadCache;
    authGuard: AuthGuard;
  }
}


// Headers and body fields that must never reach a log line.
const REDACT = [
  'req.headers.authorization',
  'req.headers["service-session"]',
  'req.headers.cookie',
  'req.headers["x-bot-secret"]',
];

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export interface BuildOptions extends OpenOptions {
  /** An already open database (tests share one per file). */
  database?: Database;
  /** Where log lines go (tests capture them to check nothing secret is logged). */
  logStream?: NodeJS.WritableStream;
}

/** Builds the whole service without listening; the caller owns start-up and shutdown. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? (await openDatabase(config, options));
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACT, censor: '[redacted]' },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      // Accept a caller's id only if it is short and plain, so it cannot inject into logs.
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : `req-${randomUUID()}`;
    },
    // A number of hops becomes proxy-addr's trust function (the typings take no number).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    forceCloseConnections: false,
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('database', database);
  // Tests share one database between apps: the newest app's logger hears of outages.
  database.outage.log = app.log;
  app.decorate('files', await FileStore.forConfig(config, database.db));
  app.decorate('secrets', SecretBox.forConfig(config));
  const events = new EventBus();
  app.decorate('events', events);
  // On PostgreSQL other instances' changes arrive by LISTEN: until it listens, nothing is cached.
  const readCache = new ReadCache(config.readCache, config.readCacheMaxBytes, database.kind === 'pglite');
  app.decorate('readCache', readCache);
  events.onChange((change) => readCache.changed(change));
  // Hooks run in reverse order on close: jobs stop and the listener closes before the database does.
  if (!options.database) app.addHook('onClose', async () => database.close());
  app.addHook('onClose', async () => events.close());
  const hub = new EventHub(
    database.db,
    { replayMinutes: config.eventsReplayMinutes, maxBufferedBytes: config.realtimeMaxBufferedBytes, sweepMs: config.realtimeHeartbeatMs },
    (err) => logFailure(app.log, err, {}, 'real-time delivery failed'),
  );
  app.decorate('realtime', hub);
  events.onCommitted((organizations) => hub.wake(organizations));
  // After an outage or a lost listener, events committed meanwhile (here or elsewhere) woke no one.
  events.onListening = (listening) => {
    readCache.setAvailable(listening);
    if (listening) hub.catchUp();
  };
  const forget = database.outage.onRecovered(() => hub.catchUp());
  app.addHook('onClose', async () => void forget());
  // Before the server waits for open connections to end: real-time clients are told to go.
  app.addHook('preClose', async () => hub.close());
  app.addHook('onClose', async () => stopJobs(app));

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Before hygiene: its onSend compresses answers, and replays are kept as the handler answered.
  registerIdempotency(app, config);
  await registerHygiene(app, config);
  registerValidation(app);
  registerErrorHandling(app);
  await registerOpenApi(app, VERSION);
  await app.register(multipart, {
    limits: { fileSize: config.fileLimitBytes, files: 20, fields: 20, fieldSize: 64 * 1024, parts: 40 },
  });
  const sharedCounter = await registerRateLimit(app, config, database);
  const guardWarn = throttledWarn(app.log, 'brute-force guard: the shared counter failed; this instance counts alone meanwhile');
  app.decorate('authGuard', authGuardFor(config, app.secrets, sharedCounter, app.log, guardWarn));
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  registerAuthentication(app, database.db, config.sessionTtlDays, app.authGuard, readCache);
  registerReadCache(app, readCache);
  registerMetrics(app, config);

  // The embedded engine runs without autovacuum.
  if (database.kind === 'pglite') registerEmbeddedMaintenance(app);
  for (const mod of modules) await app.register(mod);
  await registerWebClient(app);
  await app.ready();
  if (config.databaseUrl) await events.listenAcrossInstances(config.databaseDirectUrl ?? config.databaseUrl, app.log, config.databaseConnectTimeoutMs);
  if (config.jobsEnabled) startJobs(app);
  return app;
}
