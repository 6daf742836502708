import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { sha256 } from './crypto.js';
import { AppError } from './errors.js';
import { problemResponse } from './openapi.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

const PREFIX = 'workboard_';
const FAST = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const SLOW = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The service's Prometheus metrics. One registry per app, never prom-client's global one: tests
 * build many apps in one process, and each must count only its own requests. What other parts
 * count themselves (queries, cache lookups, connections) is read when scraped, not pushed.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly on = { registers: [this.registry] };
  private processMetrics = false;

  readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SLOW,
    ...this.on,
  });

  readonly queryDuration = new Histogram({
    name: `${PREFIX}db_query_duration_seconds`,
    help: 'Time from sending a statement to its answer (on PGlite including the wait for the engine)',
    buckets: FAST,
    ...this.on,
  });

  readonly eventLag = new Histogram({
    name: `${PREFIX}event_dispatch_lag_seconds`,
    help: "Seconds from an event's write (its transaction) to its first delivery to real-time clients",
    buckets: SLOW,
    ...this.on,
  });

  readonly jobRuns = new Counter({
    name: `${PREFIX}job_runs_total`,
    help: 'Runs of periodic jobs, by job and outcome (ok, failed)',
    labelNames: ['job', 'outcome'] as const,
    ...this.on,
  });

  readonly jobDuration = new Histogram({
    name: `${PREFIX}job_duration_seconds`,
    help: 'Time one run of a periodic job took',
    labelNames: ['job'] as const,
    buckets: SLOW,
    ...this.on,
  });

  readonly webhookAttempts = new Counter({
    name: `${PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts, by what became of the delivery: succeeded, retrying, failed (retries spent)',
    labelNames: ['outcome'] as const,
    ...this.on,
  });

  readonly webhookDuration = new Histogram({
    name: `${PREFIX}webhook_attempt_duration_seconds`,
    help: 'Time a webhook receiver took to answer (or to fail)',
    buckets: SLOW,
    ...this.on,
  });

  /** Node's own (memory, CPU, event-loop delay, GC): added at the first scrape, as they start monitors. */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  /** A gauge read at scrape time. */
  gauge(name: string, help: string, read: () => number | null): void {
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      collect() {
        const value = read();
        if (value !== null) this.set(value);
      },
      ...this.on,
    });
  }

  /** A counter kept elsewhere (a plain number), read at scrape time; one series per label value. */
  counter(name: string, help: string, label: string, read: () => Record<string, number>): void {
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      labelNames: [label],
      collect() {
        this.reset();
        for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
      },
      ...this.on,
    });
  }
}

// A route that matched nothing has no pattern: one series for all of them, never the raw URL.
const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';

const ratio = (c: { hit: number; miss: number }) => (c.hit + c.miss === 0 ? null : c.hit / (c.hit + c.miss));

/** Does the request carry `Authorization: Bearer <METRICS_TOKEN>`? Compared as digests, in constant time. */
function bearerMatches(request: FastifyRequest, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return Boolean(m) && timingSafeEqual(Buffer.from(sha256(m![1]!), 'hex'), Buffer.from(sha256(token), 'hex'));
}

/**
 * Counts every answer by route pattern, reads the other parts' counters when scraped, and serves
 * `GET /metrics`. Call after the platform's parts exist (database, real-time hub, read cache) and
 * before the modules' routes, so its hook sees them all.
 */
export function registerMetrics(app: FastifyInstance, config: Config): Metrics {
  const metrics = new Metrics();
  app.decorate('metrics', metrics);
  const { database, realtime, readCache } = app;

  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe({ method: request.method, route: routeOf(request), status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  // Tests share one database between apps: the newest app times its queries, and stops when closed.
  const observe = (seconds: number) => metrics.queryDuration.observe(seconds);
  database.queries.observe = observe;
  app.addHook('onClose', async () => {
    if (database.queries.observe === observe) database.queries.observe = undefined;
  });
  metrics.gauge('db_queries_in_flight', 'Statements sent and not answered yet', () => database.queries.inFlight);
  const { outage } = database;
  metrics.counter('db_errors_total', 'Database faults met, by kind (unreachable, connection_lost, shutdown, timeout, statement_timeout, disk_full, …)', 'kind', () => outage.counts);
  metrics.gauge('db_outage', '1 while the database is unavailable (requests answer 503 at once), else 0', () => (outage.down ? 1 : 0));
  metrics.gauge('db_outage_seconds', 'How long the current database outage has lasted (0 when none)', () => (outage.down ? (Date.now() - outage.since) / 1000 : 0));
  if (database.wasmMemoryBytes) {
    const wasm = database.wasmMemoryBytes;
    metrics.gauge('db_wasm_memory_bytes', 'WebAssembly memory the embedded database has grown to (part of the external memory; it never shrinks)', () => wasm());
  }
  if (database.pool) {
    const pool = database.pool;
    metrics.gauge('db_pool_connections', 'Connections the PostgreSQL pool holds', () => pool().total);
    metrics.gauge('db_pool_idle_connections', 'Pool connections not in use', () => pool().idle);
    metrics.gauge('db_pool_waiting_requests', 'Queries and transactions waiting for a pool connection', () => pool().waiting);
  }

  realtime.onDispatched = (lag) => metrics.eventLag.observe(Math.max(0, lag));
  metrics.gauge('realtime_connections', 'Open real-time connections (WebSocket and SSE)', () => realtime.connections);

  const lookups = readCache.lookups;
  metrics.counter('read_cache_answer_lookups_total', 'Read-cache lookups of answers, by result (hit, miss)', 'result', () => lookups.answer);
  metrics.counter('read_cache_credential_lookups_total', 'Read-cache lookups of credentials, by result (hit, miss)', 'result', () => lookups.credential);
  metrics.gauge('read_cache_answer_hit_ratio', 'Share of answer lookups served from memory since start', () => ratio(lookups.answer));
  metrics.gauge('read_cache_credential_hit_ratio', 'Share of credential lookups served from memory since start', () => ratio(lookups.credential));

  const { denials } = app.authGuard;
  metrics.counter('auth_denials_total', 'Requests refused for want of a valid credential or password, by reason (throttled and sign_in_delayed answered 429)', 'reason', () => denials);

  app.get(
    '/metrics',
    {
      config: { public: true },
      schema: {
        // An operations endpoint, not part of the product's API.
        hide: true,
        tags: ['Service'],
        summary: 'Prometheus metrics',
        description: 'Prometheus text format. With METRICS_TOKEN set it asks for `Authorization: Bearer <METRICS_TOKEN>`.',
        response: {
          200: { description: 'the metrics', content: { 'text/plain': { schema: Type.String() } } },
          401: problemResponse('METRICS_TOKEN is set and the request does not carry it'),
        },
      },
    },
    async (request, reply) => {
      if (config.metricsToken && !bearerMatches(request, config.metricsToken)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new AppError('UNAUTHENTICATED', 'the metrics need `Authorization: Bearer <METRICS_TOKEN>`');
      }
      metrics.collectProcessMetrics();
      const text = await metrics.registry.metrics();
      reply.type(metrics.registry.contentType).header('cache-control', 'no-store');
      // A Buffer goes out as it is, past the JSON serializer.
      return reply.send(Buffer.from(text, 'utf8') as never);
    },
  );
  return metrics;
}
