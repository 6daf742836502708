import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { queryRows, type Database, type Db } from '../db/client.js';
import { credentialOf } from './auth.js';
import { sha256 } from './crypto.js';
import { registerJob } from './jobs.js';

/** Counts one request against a key: its count in the current window and the milliseconds left of that window. */
export type Hit = (key: string, windowMs: number) => Promise<{ current: number; ttl: number }>;

const UPSERT = (rows: string) => sql`
  insert into rate_limits as r (key, count, reset_at)
  select x.key, x.n, now() + make_interval(secs => x.window_ms / 1000.0)
  from jsonb_to_recordset(${rows}::jsonb) as x(key text, n int8, window_ms int8)
  on conflict (key) do update set
    count = case when r.reset_at <= now() then excluded.count else r.count + excluded.count end,
    reset_at = case when r.reset_at <= now() then excluded.reset_at else r.reset_at end
  returning r.key, r.count as current, greatest(0, ceil(extract(epoch from r.reset_at - now()) * 1000))::int8 as ttl`;

interface Counter {
  /** The shared count at the last sync, this instance's hits included. */
  known: number;
  /** Hits counted here and not sent yet. */
  pending: number;
  /** Hits sent and not answered yet: a hit-path upsert and the interval's sync may overlap, and each sends only its own. */
  sending: number;
  syncedAt: number;
  resetAt: number;
  windowMs: number;
}

type Row = { key: string; n: number; window_ms: number };

/**
 * Counts in PostgreSQL without a statement per request under load. A hit on a key not synced for
 * `syncMs` (a new key, a new window, a caller making a request now and then) is counted in the
 * shared row at once, together with what was counted here meanwhile, and answers the shared count.
 * Hits in quick succession are counted here and added to the rows in one upsert of every key
 * `syncMs` later. So a busy caller costs one statement per interval instead of one per request,
 * the read cache keeps answering without touching the database, and N instances can overshoot a
 * limit by at most what each counts in one interval.
 */
export function postgresHit(db: Db, syncMs = 100, warn: (err: unknown) => void = () => {}): Hit & { close(): Promise<void> } {
  const counters = new Map<string, Counter>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  // Sends the counters' pending hits (moved to `sending` first, so that nothing is sent twice); a
  // failed upsert puts them back for the next sync.
  const upsert = async (keys: string[]) => {
    const rows: Row[] = [];
    const sent = new Map<string, { c: Counter; n: number }>();
    for (const key of keys) {
      const c = counters.get(key);
      if (!c || c.pending <= 0) continue;
      rows.push({ key, n: c.pending, window_ms: c.windowMs });
      sent.set(key, { c, n: c.pending });
      c.sending += c.pending;
      c.pending = 0;
    }
    if (rows.length === 0) return;
    let answers: Array<{ key: string; current: number; ttl: number }>;
    try {
      answers = await queryRows(db, UPSERT(JSON.stringify(rows)), { prepare: 'rate-limit' });
    } catch (error) {
      for (const { c, n } of sent.values()) {
        c.sending -= n;
        c.pending += n;
      }
      throw error;
    }
    const now = Date.now();
    // By key: a sync carries every busy key, so a search per answer would grow with their square.
    for (const answer of answers) {
      const one = sent.get(answer.key);
      if (!one) continue;
      one.c.sending -= one.n;
      one.c.known = Number(answer.current);
      one.c.syncedAt = now;
      one.c.resetAt = now + Number(answer.ttl);
    }
  };

  const sync = async () => {
    timer = null;
    const now = Date.now();
    const keys: string[] = [];
    for (const [key, c] of counters) {
      if (c.pending > 0) keys.push(key);
      else if (c.resetAt <= now && c.sending === 0) counters.delete(key);
    }
    if (keys.length === 0) return;
    // A failed sync keeps the hits for the next one; they were answered already.
    await upsert(keys).catch((error: unknown) => {
      warn(error);
      timer ??= setTimeout(sync, syncMs * 10).unref();
    });
  };

  const hit: Hit = async (key, windowMs) => {
    const now = Date.now();
    let c = counters.get(key);
    if (!c || c.resetAt <= now) counters.set(key, (c = { known: 0, pending: 0, sending: 0, syncedAt: 0, resetAt: now + windowMs, windowMs }));
    c.pending++;
    // Requests still in flight while the app closes are counted here only.
    if (closed) return { current: c.known + c.sending + c.pending, ttl: Math.max(0, c.resetAt - now) };
    // One send per key at a time: two in flight could answer out of order, and the later count
    // arriving first, plus what is still marked as sending, counted a hit twice (a refusal one
    // request early, seen in CI's PostgreSQL pass).
    if (now - c.syncedAt >= syncMs && c.sending === 0) {
      // Marked before the round trip: hits meanwhile wait for the next sync.
      c.syncedAt = now;
      await upsert([key]);
    } else {
      timer ??= setTimeout(sync, syncMs).unref();
    }
    return { current: c.known + c.sending + c.pending, ttl: Math.max(0, c.resetAt - Date.now()) };
  };
  // Before the pool closes: the last interval's hits are sent now, and no timer fires on a closed pool.
  const close = async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    await sync();
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return Object.assign(hit, { close });
}

// Atomic on the Redis server: the first hit of a window (or a key left without expiry) sets it.
const HIT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;

export function redisHit(redis: Redis, prefix: string): Hit {
  redis.defineCommand('workboardRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as unknown as { workboardRateLimitHit(key: string, windowMs: number): Promise<[number, number]> };
  return async (key, windowMs) => {
    const [current, ttl] = await client.workboardRateLimitHit(prefix + key, windowMs);
    return { current, ttl };
  };
}

/** Logs at most once per interval: an unreachable store would otherwise log every request. */
export function throttledWarn(log: FastifyBaseLogger, message: string, intervalMs = 10_000): (err: unknown) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < intervalMs) return;
    last = Date.now();
    log.warn({ err }, message);
  };
}

/** @fastify/rate-limit's callback store over a shared counter. */
function sharedStore(hit: Hit, namespace: string, warn: (err: unknown) => void): FastifyRateLimitStoreCtor {
  const storeWith = (prefix: string): FastifyRateLimitStore => ({
    incr(key, callback, timeWindow) {
      hit(prefix + key, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => {
          warn(error);
          callback(error);
        },
      );
    },
    child(options) {
      // A route's own limit counts apart from the global one even when the keys are alike.
      const route = (options as unknown as { routeInfo?: { method?: string; url?: string } }).routeInfo;
      return storeWith(route?.url ? `${prefix}${route.method} ${route.url}:` : prefix);
    },
  });
  // The plugin constructs the store with its options, which a shared counter has no use for.
  return function SharedStore() {
    return storeWith(namespace);
  } as unknown as FastifyRateLimitStoreCtor;
}

/** Opens the Redis connection at start, so a wrong REDIS_URL stops the start instead of silently lifting the limits. */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  // No offline queue and a short timeout: while Redis is away, requests go through unlimited at
  // once rather than waiting for it.
  // ioredis (8 MB resident) is loaded only when REDIS_URL is set (issue 42).
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000 });
  redis.on('error', throttledWarn(app.log, 'rate limit: Redis connection failed (it reconnects)'));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis (${(error as Error).message})`);
  }
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return redis;
}

/**
 * Rate limits per credential (per IP without one). Instances share the counters: in Redis when
 * REDIS_URL is set, else in PostgreSQL; only the embedded database, which one process owns, counts
 * in memory. A shared store that fails lets requests through (and logs it): the limits protect the
 * service, so their store must not become the reason it is down. Answers the shared counter (null
 * in memory), which the brute-force guard counts in too.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config, database: Database): Promise<Hit | null> {
  let store: FastifyRateLimitStoreCtor | undefined;
  let shared: Hit | null = null;
  const warn = throttledWarn(app.log, 'rate limit: the shared counter failed; the request was let through');
  if (config.redisUrl) {
    shared = redisHit(await connectRedis(app, config.redisUrl), `${config.redisKeyPrefix}rl:`);
    store = sharedStore(shared, config.rateLimitNamespace, warn);
  } else if (database.kind === 'postgres') {
    const hit = postgresHit(database.db, 100, warn);
    app.addHook('preClose', () => hit.close());
    shared = hit;
    store = sharedStore(hit, config.rateLimitNamespace, warn);
    registerJob(app, {
      name: 'rate-limits.purge',
      intervalMs: 5 * 60_000,
      exclusive: true,
      run: async (a) => void (await a.database.db.execute(sql`delete from rate_limits where reset_at <= now()`)),
    });
  }
  await app.register(rateLimit, {
    global: true,
    max: config.apiRateLimitPerMinute,
    timeWindow: 60_000,
    ...(store ? { store, skipOnError: true } : {}),
    // Per credential (hashed, never the raw value), per IP for anonymous callers.
    keyGenerator: (request) => {
      const credential = credentialOf(request);
      return credential ? `c:${sha256(credential).slice(0, 32)}` : `ip:${request.ip}`;
    },
    // Probes and the scraper poll on a schedule of their own; /metrics has its own token.
    allowList: (request) => request.url === '/health' || request.url === '/ready' || request.url === '/metrics',
  });
  return shared;
}
