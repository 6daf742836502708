import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { queryRows, type Database, type Db } from '../db/client.js';
import { credentialOf } from './auth.js';
import { sha256 } from './crypto.js';
import { registerJob } from './jobs.js';

/** Counts one request against a key: its count in the current window and the milliseconds left of that window. */
export type Hit = (key: string, windowMs: number) => Promise<{ current: number; ttl: number }>;

/** One parameterized upsert per request: a window that has run out starts again at 1. */
export function postgresHit(db: Db): Hit {
  return async (key, windowMs) => {
    const [row] = await queryRows<{ current: number; ttl: number }>(
      db,
      sql`insert into rate_limits as r (key, count, reset_at) values (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}::float8))
          on conflict (key) do update set
            count = case when r.reset_at <= now() then 1 else r.count + 1 end,
            reset_at = case when r.reset_at <= now() then excluded.reset_at else r.reset_at end
          returning r.count as current, greatest(0, ceil(extract(epoch from r.reset_at - now()) * 1000))::int8 as ttl`,
      { prepare: 'rate-limit' },
    );
    return { current: Number(row!.current), ttl: Number(row!.ttl) };
  };
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
function throttledWarn(log: FastifyBaseLogger, message: string, intervalMs = 10_000): (err: unknown) => void {
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
 * service, so their store must not become the reason it is down.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config, database: Database): Promise<void> {
  let store: FastifyRateLimitStoreCtor | undefined;
  const warn = throttledWarn(app.log, 'rate limit: the shared counter failed; the request was let through');
  if (config.redisUrl) {
    store = sharedStore(redisHit(await connectRedis(app, config.redisUrl), `${config.redisKeyPrefix}rl:`), config.rateLimitNamespace, warn);
  } else if (database.kind === 'postgres') {
    store = sharedStore(postgresHit(database.db), config.rateLimitNamespace, warn);
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
}
