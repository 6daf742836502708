import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from './errors.js';
import type { Hit } from './rate-limit.js';
import type { SecretBox } from './secrets.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Failed sign-ins to one account from one address that cost no wait; each one after doubles it (1 s, 2 s, 4 s …). */
export const FREE_SIGN_INS = 5;
/**
 * Failed sign-ins to one account from every address together before an address that failed on it
 * waits as well: a spread guess (many addresses, a few tries each) is slowed too, yet an address
 * that never failed on the account (its owner's, usually) is never made to wait by others' failures.
 */
export const FREE_ACCOUNT_SIGN_INS = 4 * FREE_SIGN_INS;
const MAX_WAIT_MS = 15 * MINUTE;
/** Keys kept in memory at most: a flood of fresh keys evicts the oldest, it does not grow the heap. */
const MAX_KEYS = 100_000;

interface Count {
  current: number;
  resetAt: number;
  /** When this instance last counted a failure on the key: growing waits run from it. */
  lastAt: number;
}

/**
 * Failure counters, in a shared store when there is one (the rate limiter's: Redis or PostgreSQL),
 * else in memory. Refusals read only memory, so a refused request costs no round trip: on the
 * embedded database the counts are all here; on a shared store this instance knows what the store
 * answered at its own last failure, so another instance's failures show here after at most one
 * more try through this one.
 */
export class FailureCounts {
  private readonly counts = new Map<string, Count>();

  constructor(
    private readonly shared: Hit | null,
    private readonly warn: (err: unknown) => void = () => {},
  ) {}

  known(key: string, now = Date.now()): Count | null {
    const c = this.counts.get(key);
    return c && c.resetAt > now ? c : null;
  }

  async hit(key: string, windowMs: number): Promise<Count> {
    let next: Count | null = null;
    if (this.shared) {
      try {
        const answer = await this.shared(key, windowMs);
        next = { current: answer.current, resetAt: Date.now() + answer.ttl, lastAt: Date.now() };
      } catch (error) {
        // A store that fails must not lift the limit: this instance counts on alone.
        this.warn(error);
      }
    }
    if (!next) {
      const now = Date.now();
      const c = this.known(key, now);
      next = c ? { current: c.current + 1, resetAt: c.resetAt, lastAt: now } : { current: 1, resetAt: now + windowMs, lastAt: now };
    }
    // Deleted first so that insertion order is the order of last failure: eviction takes the stalest.
    this.counts.delete(key);
    this.counts.set(key, next);
    if (this.counts.size > MAX_KEYS) this.evict();
    return next;
  }

  private evict(): void {
    const now = Date.now();
    for (const [key, c] of this.counts) if (c.resetAt <= now) this.counts.delete(key);
    for (const key of this.counts.keys()) {
      if (this.counts.size <= MAX_KEYS * 0.9) break;
      this.counts.delete(key);
    }
  }
}

/** Brute-force bookkeeping of one sign-in, bound to the client's address. */
export interface SignInAttempts {
  /** Throws RATE_LIMITED (429 with Retry-After) while this account is to wait from this address. */
  check(email: string): void;
  failed(email: string): Promise<void>;
}

export type Denial = 'missing_credential' | 'invalid_credential' | 'throttled' | 'sign_in_failed' | 'sign_in_delayed';

export interface GuardOptions {
  /** Failed credentials one address may send per minute before it is refused without a lookup (AUTH_RATE_LIMIT_PER_MINUTE). */
  perAddressPerMinute: number;
  /** Prefix of the stored keys (several apps on one database in tests). */
  namespace: string;
  /** Key of the keyed hash that turns addresses and emails into stored keys. */
  hashKey: Buffer;
}

/** The wait still due after `count` failures, `free` of them without one, the wait doubling from then. */
function waitAfter(count: Count | null, free: number, now: number): number {
  if (!count || count.current < free) return 0;
  const wait = Math.min(MAX_WAIT_MS, 1000 * 2 ** Math.min(30, count.current - free));
  return Math.max(0, count.lastAt + wait - now);
}

/** The 429 to throw, its Retry-After set on the reply. */
export function tooManyAttempts(reply: FastifyReply, waitMs: number, message: string): AppError {
  reply.header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))));
  return new AppError('RATE_LIMITED', message);
}

/**
 * Brute-force protection. Requests without a valid credential are counted per client address,
 * and once an address has spent its budget its next ones are refused before any credential lookup.
 * Failed sign-ins are counted per account and address and per account, with doubling waits. Every
 * stored key is a keyed hash: no email or address in clear in Redis or `rate_limits`.
 */
export class AuthGuard {
  /** Denials since start, by reason: read by /metrics. */
  readonly denials: Record<Denial, number> = { missing_credential: 0, invalid_credential: 0, throttled: 0, sign_in_failed: 0, sign_in_delayed: 0 };
  // Lookups under way per address: a burst sent at once must not all be looked up before the first fails.
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly counts: FailureCounts,
    private readonly options: GuardOptions,
  ) {}

  key(kind: string, ...values: string[]): string {
    const digest = createHmac('sha256', this.options.hashKey).update(values.join('\0')).digest('base64url').slice(0, 27);
    return `${this.options.namespace}bf:${kind}:${digest}`;
  }

  /** A short tag of an account for log lines: the same account gives the same tag, and the tag gives no email. */
  accountTag(email: string): string {
    return this.key('acct', email).slice(-10);
  }

  /** Milliseconds the address must wait before a credential of its is looked up; 0 when it may go on. */
  lookupWait(ip: string): number {
    const key = this.key('ip', ip);
    const now = Date.now();
    const c = this.counts.known(key, now);
    const spent = (c?.current ?? 0) + (this.inFlight.get(key) ?? 0);
    return spent >= this.options.perAddressPerMinute ? Math.max(1, (c?.resetAt ?? now + MINUTE) - now) : 0;
  }

  /** Marks a lookup under way for the address; call the function returned when it ends. */
  enter(ip: string): () => void {
    const key = this.key('ip', ip);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = (this.inFlight.get(key) ?? 1) - 1;
      if (n > 0) this.inFlight.set(key, n);
      else this.inFlight.delete(key);
    };
  }

  /** Counts a request that brought no valid credential; answers the wait now due (0: answer the 401). */
  async failed(ip: string): Promise<number> {
    const c = await this.counts.hit(this.key('ip', ip), MINUTE);
    return c.current > this.options.perAddressPerMinute ? Math.max(1, c.resetAt - Date.now()) : 0;
  }

  /** Milliseconds before this address may try this account's password again; 0 when it may now. */
  signInWait(email: string, ip: string): number {
    const now = Date.now();
    const pair = this.counts.known(this.key('pair', email, ip), now);
    let wait = Math.max(waitAfter(pair, FREE_SIGN_INS, now), this.lookupWait(ip));
    if (pair) wait = Math.max(wait, waitAfter(this.counts.known(this.key('acct', email), now), FREE_ACCOUNT_SIGN_INS, now));
    return wait;
  }

  /** Counts a failed sign-in against the account, the account from this address, and the address. */
  async signInFailed(email: string, ip: string): Promise<void> {
    await Promise.all([
      this.counts.hit(this.key('pair', email, ip), HOUR),
      this.counts.hit(this.key('acct', email), HOUR),
      this.counts.hit(this.key('ip', ip), MINUTE),
    ]);
  }

  /** The sign-in bookkeeping of one request, refusals answered on its reply. */
  signInAttempts(log: FastifyBaseLogger, ip: string, reply: FastifyReply): SignInAttempts {
    return {
      check: (email) => {
        const wait = this.signInWait(email, ip);
        if (wait <= 0) return;
        this.deny(log, 'sign_in_delayed', ip, { account: this.accountTag(email) });
        throw tooManyAttempts(reply, wait, 'too many failed sign-ins, retry later');
      },
      failed: async (email) => {
        await this.signInFailed(email, ip);
        this.deny(log, 'sign_in_failed', ip, { account: this.accountTag(email) });
      },
    };
  }

  /** Counts a denial for /metrics and logs it with the client address; never the credential, password or email. */
  deny(log: FastifyBaseLogger, reason: Denial, ip: string, extra: Record<string, unknown> = {}): void {
    this.denials[reason]++;
    const refused = reason === 'throttled' || reason === 'sign_in_delayed';
    log[refused ? 'warn' : 'info']({ ip, reason, ...extra }, 'authentication denied');
  }
}

/**
 * The guard of this app. The keyed hash's key is derived from the secrets key (SECRETS_KEY, or the
 * embedded install's own), so every instance names a counter alike and a restart keeps the counts.
 * On PostgreSQL without SECRETS_KEY there is no shared key: each process draws one, and each then
 * counts under keys of its own (the limits hold per instance, not across them); the start says so.
 */
export function authGuardFor(config: Config, secrets: SecretBox, shared: Hit | null, log: FastifyBaseLogger, warn: (err: unknown) => void): AuthGuard {
  let hashKey = secrets.derive('rate-limit keys');
  if (!hashKey) {
    hashKey = randomBytes(32);
    if (shared) log.warn('SECRETS_KEY is not set: sign-in and credential failures are counted per instance, not across instances');
  }
  return new AuthGuard(new FailureCounts(shared, warn), {
    perAddressPerMinute: config.authRateLimitPerMinute,
    namespace: config.rateLimitNamespace,
    hashKey,
  });
}
