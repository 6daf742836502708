import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Actor } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's 200 answers may be kept per caller and URL until anything in the caller's
     * organization changes. Only for reads whose answer depends on nothing else: no clock, no
     * other organization, no side effect.
     */
    readCache?: boolean;
  }
  interface FastifyRequest {
    /** The cache clock when the route began computing its answer; unset when it will not be stored. */
    readCacheBegin: number | null;
  }
}

/** Who changed what: the organizations written to (0 = unknown, so everything) and the acting user. */
export interface Change {
  organizationIds: Iterable<number>;
  userId: number | null;
  /**
   * Organizations whose change reached only these parts (`t<task>`, `p<project>`): only the answers
   * that show them are dropped (and every space-wide list). An organization named in
   * `organizationIds` but not here changed as a whole.
   */
  scoped?: ReadonlyMap<number, readonly string[]>;
}

// Events that change what task reads and boards show and nothing about who may read what: a change
// made of only these drops the answers of its tasks and projects, not the whole organization's.
// A task's link to another project ('stages' in task.updated) is left out: the project it leaves
// is not named by the event.
const SCOPED = new Set(['task.created', 'task.updated', 'task.moved', 'task.left', 'message.created', 'message.updated', 'message.deleted',
  'message.pinned', 'message.reaction.added', 'message.reaction.removed', 'notification.created', 'notification.updated']);

interface ScopeFacts {
  organizationId: number;
  type: string;
  taskId: number | null;
  projectId: number | null;
  payload: unknown;
}

/** The parts each organization's events reached, for organizations whose events are all SCOPED. */
export function scopesOf(events: readonly ScopeFacts[]): Map<number, string[]> {
  const keys = new Map<number, Set<string> | null>();
  for (const e of events) {
    const payload = e.payload as { changes?: unknown; task?: { stages?: Array<{ projectId?: unknown }> } } | null;
    const linked = Array.isArray(payload?.changes) && payload.changes.includes('stages') && e.type === 'task.updated';
    if (!SCOPED.has(e.type) || linked) {
      keys.set(e.organizationId, null);
      continue;
    }
    if (!keys.has(e.organizationId)) keys.set(e.organizationId, new Set());
    const set = keys.get(e.organizationId);
    if (!set) continue;
    if (e.taskId !== null) set.add(`t${e.taskId}`);
    if (e.projectId !== null) set.add(`p${e.projectId}`);
    for (const s of payload?.task?.stages ?? []) if (typeof s.projectId === 'number') set.add(`p${s.projectId}`);
  }
  const out = new Map<number, string[]>();
  for (const [org, set] of keys) if (set) out.set(org, [...set]);
  return out;
}

interface Answer {
  stamp: number;
  body: string;
  headers: Record<string, string>;
}

interface Credential {
  stamp: number;
  actor: Actor;
  /** The credential's own expiry, or the entry's age limit if that comes first. */
  until: number;
}

type Entry = { kind: 'answer'; value: Answer } | { kind: 'credential'; value: Credential };

// Even a change no instance was told of (a database edited by hand) is seen after this long.
const MAX_AGE_MS = 60_000;
// Answer headers worth keeping: the route's own (paging). Per-request ones are set again.
const KEPT_HEADERS = ['x-total-count', 'link'];

/**
 * Answers of hot reads and resolved credentials, kept in memory and thrown away as soon as
 * anything in their organization (or, for credentials, anything done by their user) changes.
 *
 * Every write transaction reports its change after it commits: at once in this process, through
 * NOTIFY in the others. Each change moves a monotonic clock and stamps the organization and user
 * with it. An entry is stored with the stamp current when its read BEGAN and only if nothing
 * changed meanwhile, and it is used only while that stamp is still current. So a read that raced a
 * commit is never kept, and nothing served is older than the last change this process was told of.
 * While changes could be missed (PostgreSQL's LISTEN connection is down), nothing is cached.
 */
export class ReadCache {
  private clock = 0;
  private epoch = 0;
  private readonly stamps = new Map<string, number>();
  private readonly entries: LRUCache<string, Entry>;
  private available: boolean;
  /** Lookups since start, for the hit ratio in /metrics. */
  readonly lookups = { answer: { hit: 0, miss: 0 }, credential: { hit: 0, miss: 0 } };

  constructor(
    private readonly enabled: boolean,
    maxBytes: number,
    available: boolean,
  ) {
    this.available = enabled && available;
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (e) => (e.kind === 'answer' ? e.value.body.length * 2 + 256 : 512),
      ttl: MAX_AGE_MS,
      ttlAutopurge: false,
    });
  }

  /** Whether changes can be missed; entering or leaving that state forgets everything. */
  setAvailable(available: boolean): void {
    const next = this.enabled && available;
    if (next === this.available) return;
    this.available = next;
    this.forgetAll();
  }

  /** The clock before a read starts: what it computes may be kept if nothing changes until it ends. */
  begin(): number | null {
    return this.available ? this.clock : null;
  }

  changed(change: Change): void {
    const now = ++this.clock;
    let whole = false;
    let parted = false;
    for (const org of change.organizationIds) {
      // 0 is a registration's "no organization yet": its user and organization are new, so nothing
      // kept can show them, and an existing organization it touches (an invite join) is named by
      // its events. Forgetting everything here made every sign-up empty every instance's cache.
      if (org === 0) continue;
      const parts = change.scoped?.get(org);
      if (!parts) {
        whole = true;
        this.stamps.set(`o${org}`, now);
        continue;
      }
      parted = true;
      this.stamps.set(`o${org}:${ALL_LISTS}`, now);
      for (const part of parts) this.stamps.set(`o${org}:${part}`, now);
    }
    // Only a change of tasks alone leaves its author's credential alone.
    if (change.userId && (whole || !parted)) this.stamps.set(`u${change.userId}`, now);
  }

  forgetAll(): void {
    this.epoch = ++this.clock;
    this.stamps.clear();
    this.entries.clear();
  }

  private stampOf(organizationId: number, userId?: number, part?: string): number {
    const org = this.stamps.get(`o${organizationId}`) ?? 0;
    const user = userId === undefined ? 0 : (this.stamps.get(`u${userId}`) ?? 0);
    const shown = part === undefined ? 0 : (this.stamps.get(`o${organizationId}:${part}`) ?? 0);
    return Math.max(this.epoch, org, user, shown);
  }

  // Only begin() looks at availability: leaving it forgets everything and moves the epoch past
  // every read in flight, so nothing from before can be found or kept.
  credential(hash: string): Actor | null {
    const actor = this.liveCredential(hash);
    this.lookups.credential[actor ? 'hit' : 'miss']++;
    return actor;
  }

  private liveCredential(hash: string): Actor | null {
    const e = this.entries.get(`c${hash}`);
    if (e?.kind !== 'credential') return null;
    const c = e.value;
    if (c.until <= Date.now() || c.stamp !== this.stampOf(c.actor.organizationId, c.actor.userId)) {
      this.entries.delete(`c${hash}`);
      return null;
    }
    return c.actor;
  }

  keepCredential(hash: string, begin: number | null, actor: Actor, expiresAt: number | null): void {
    if (begin === null) return;
    const stamp = this.stampOf(actor.organizationId, actor.userId);
    if (stamp > begin) return;
    const until = Math.min(expiresAt ?? Infinity, Date.now() + MAX_AGE_MS);
    // Shared by every request that presents the credential: nobody may change it.
    this.entries.set(`c${hash}`, { kind: 'credential', value: { stamp, actor: Object.freeze(actor), until } });
  }

  /** `part` is what the answer shows (partOf): changes elsewhere in the organization leave it. */
  answer(actor: Actor, url: string, part: string): Answer | null {
    const answer = this.liveAnswer(actor, url, part);
    this.lookups.answer[answer ? 'hit' : 'miss']++;
    return answer;
  }

  private liveAnswer(actor: Actor, url: string, part: string): Answer | null {
    const key = answerKey(actor, url);
    const e = this.entries.get(key);
    if (e?.kind !== 'answer') return null;
    if (e.value.stamp !== this.stampOf(actor.organizationId, undefined, part)) {
      this.entries.delete(key);
      return null;
    }
    return e.value;
  }

  keepAnswer(actor: Actor, url: string, part: string, begin: number, body: string, headers: Record<string, string>): void {
    const stamp = this.stampOf(actor.organizationId, undefined, part);
    if (stamp > begin) return;
    this.entries.set(answerKey(actor, url), { kind: 'answer', value: { stamp, body, headers } });
  }
}

// Every list wider than one project (a space's tasks) is dropped by any change of a task.
const ALL_LISTS = 'S';

/** What a cached route's answer shows: one task, one project's tasks, or (anything else) a wider list. */
function partOf(request: FastifyRequest): string {
  const params = request.params as { taskId?: unknown; projectId?: unknown };
  const route = request.routeOptions.url ?? '';
  if (route === '/tasks/:taskId') return `t${Number(params.taskId)}`;
  if (route.startsWith('/projects/:projectId/tasks')) return `p${Number(params.projectId)}`;
  return ALL_LISTS;
}

// Per caller: the same URL answers differently to users with different roles.
const answerKey = (a: Actor, url: string) => `a${a.organizationId}:${a.userId}:${url}`;

/** `Cache-Control: no-cache` from the client asks for a fresh answer, as HTTP means it. */
const wantsFresh = (request: FastifyRequest) => /\bno-cache\b/i.test(request.headers['cache-control'] ?? '');

/**
 * Serves routes marked `readCache` from memory, after authentication (the credential is always
 * checked) and before the handler; stores their serialized 200 answers.
 */
export function registerReadCache(app: FastifyInstance, cache: ReadCache): void {
  app.decorateRequest('readCacheBegin', null);
  // The OpenAPI document says so on each such route.
  app.addHook('onRoute', (route) => {
    if (!route.config?.readCache || !route.schema) return;
    const note = 'Answered from memory while nothing in the organization changed (`x-cache: hit`); `Cache-Control: no-cache` asks for a fresh answer.';
    route.schema.description = route.schema.description ? `${route.schema.description} ${note}` : note;
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config.readCache || request.method !== 'GET' || !request.actor) return;
    if (!wantsFresh(request)) {
      const hit = cache.answer(request.actor, request.url, partOf(request));
      if (hit) {
        reply.headers(hit.headers).header('x-cache', 'hit').type('application/json; charset=utf-8');
        return reply.send(hit.body);
      }
    }
    request.readCacheBegin = cache.begin();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const begin = request.readCacheBegin;
    if (begin === null || !request.actor || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    cache.keepAnswer(request.actor, request.url, partOf(request), begin, payload, headers);
    reply.header('x-cache', 'miss');
    return payload;
  });
}
