import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Db } from '../db/client.js';
import { matchesTypes } from './event-types.js';
import { envelopeOf, type EventEnvelope, type RecordedEvent } from './events.js';
import { audienceOf, type Audience, type Place } from './realtime-audience.js';

/** What a connection asked for: ids and types narrow, empty or absent lists do not. */
export interface Subscription {
  id: number;
  spaceIds?: number[];
  projectIds?: number[];
  taskIds?: number[];
  types?: string[];
}

/** One real-time connection (WebSocket or SSE) as the hub sees it. */
export interface Subscriber {
  userId: number;
  organizationId: number;
  /** SHA-256 of the credential, re-checked so a revoked one is cut off. */
  credentialHash: string;
  /** The last event id this connection has been given (or passed over). */
  cursor: number;
  /** null: everything the user may read (SSE without filters); []: nothing yet (WebSocket before subscribe). */
  subscriptions: Subscription[] | null;
  send(envelope: EventEnvelope): void;
  control(frame: Record<string, unknown>): void;
  close(code: number, reason: string): void;
  /** Bytes queued for the client but not yet written: the back-pressure measure. */
  buffered(): number;
}

export interface HubOptions {
  replayMinutes: number;
  maxBufferedBytes: number;
  sweepMs: number;
  batch?: number;
}

interface EventRow {
  id: number;
  type: string;
  spaceId: number | null;
  projectId: number | null;
  taskId: number | null;
  actorId: number | null;
  userId: number | null;
  editorsOnly: boolean;
  at: Date | string;
  payload: unknown;
}

export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_SLOW_CONSUMER = 4008;

/**
 * Fans the change log out to connected clients. Commits only wake it; it always reads the log
 * itself, from each connection's cursor, so a client gets every event once and in id order however
 * the wake-ups arrive (local commit, another instance's NOTIFY, the periodic sweep). Who may read an
 * event is decided when it is delivered, from current memberships, not when it was written.
 */
export class EventHub {
  private readonly byOrg = new Map<number, Set<Subscriber>>();
  private readonly draining = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private readonly batch: number;
  /** Per organization with connections: the newest event delivered, so a replay is not measured as lag. */
  private readonly newest = new Map<number, number>();
  /** Told, once per event, how many seconds passed between its write and its first delivery (metrics). */
  onDispatched?: (lagSeconds: number) => void;

  constructor(
    private readonly db: Db,
    private readonly options: HubOptions,
    private readonly onError: (err: unknown) => void,
  ) {
    this.batch = options.batch ?? 500;
    this.timer = setInterval(() => void this.sweep().catch(onError), options.sweepMs);
    this.timer.unref();
  }

  get connections(): number {
    let n = 0;
    for (const set of this.byOrg.values()) n += set.size;
    return n;
  }

  /**
   * Starts a connection from `lastEventId` (resume) or from now. A resume point older than the
   * replay window, or one the log no longer holds, gets `resync` and continues from now.
   */
  async start(sub: Subscriber, lastEventId: number | null): Promise<'live' | 'resumed' | 'resync'> {
    const org = sub.organizationId;
    // Not delivered to while its cursor is being decided (a drain in flight skips it).
    this.stop(sub);
    const [head] = await queryRows<{ lastId: number }>(
      this.db,
      sql`select last_id as "lastId" from event_counters where organization_id = ${org}`,
    );
    const headId = Number(head?.lastId ?? 0);
    let cursor = headId;
    let outcome: 'live' | 'resumed' | 'resync' = lastEventId === null ? 'live' : 'resumed';
    if (lastEventId !== null && lastEventId !== headId) {
      const [next] = lastEventId < headId
        ? await queryRows<{ fresh: boolean }>(
            this.db,
            sql`select at >= now() - make_interval(mins => ${this.options.replayMinutes}) as fresh
                from events where organization_id = ${org} and id = ${lastEventId + 1}`,
          )
        : [];
      if (next?.fresh) cursor = lastEventId;
      else outcome = 'resync';
    }
    sub.cursor = cursor;
    if (!this.newest.has(org)) this.newest.set(org, headId);
    if (outcome === 'resync') sub.control({ type: 'resync', lastEventId: headId });
    let set = this.byOrg.get(org);
    if (!set) this.byOrg.set(org, (set = new Set()));
    set.add(sub);
    this.wake([org]);
    return outcome;
  }

  stop(sub: Subscriber): void {
    const set = this.byOrg.get(sub.organizationId);
    set?.delete(sub);
    if (set?.size === 0) {
      this.byOrg.delete(sub.organizationId);
      this.newest.delete(sub.organizationId);
    }
  }

  wake(organizationIds: Iterable<number>): void {
    for (const org of organizationIds) {
      if (!this.byOrg.has(org)) continue;
      if (this.draining.has(org)) {
        this.again.add(org);
        continue;
      }
      const run = this.drain(org)
        .catch(this.onError)
        .finally(() => {
          this.draining.delete(org);
          if (this.again.delete(org)) this.wake([org]);
        });
      this.draining.set(org, run);
    }
  }

  /** Delivers whatever the log holds past each connection's cursor now (after an outage or a lost listener). */
  catchUp(): void {
    void this.sweep().catch(this.onError);
  }

  /** Waits until every wake-up so far has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining.size > 0) await Promise.allSettled([...this.draining.values()]);
  }

  close(): void {
    clearInterval(this.timer);
    for (const set of this.byOrg.values()) for (const sub of set) sub.close(1001, 'server shutting down');
    this.byOrg.clear();
  }

  /**
   * Periodically: cut off connections whose credential or membership has gone even when no event
   * arrives, and catch up organizations whose events did not wake us (a lost NOTIFY).
   */
  private async sweep(): Promise<void> {
    const orgs = [...this.byOrg.keys()];
    if (orgs.length === 0) return;
    const heads = await queryRows<{ org: number; lastId: number }>(
      this.db,
      sql`select organization_id as org, last_id as "lastId" from event_counters where organization_id = any(${idArray(orgs)})`,
    );
    const headOf = new Map(heads.map((h) => [Number(h.org), Number(h.lastId)]));
    for (const org of orgs) {
      const subs = [...(this.byOrg.get(org) ?? [])];
      if (subs.length === 0) continue;
      const audience = await audienceOf(this.db, org, subs, []);
      for (const sub of subs) if (!audience.valid(sub)) this.drop(sub, CLOSE_UNAUTHORIZED, 'credential or membership no longer valid');
      if (subs.some((s) => s.cursor < (headOf.get(org) ?? 0))) this.wake([org]);
    }
  }

  private drop(sub: Subscriber, code: number, reason: string): void {
    this.stop(sub);
    sub.close(code, reason);
  }

  private async drain(org: number): Promise<void> {
    for (;;) {
      const subs = [...(this.byOrg.get(org) ?? [])];
      if (subs.length === 0) return;
      const from = Math.min(...subs.map((s) => s.cursor));
      const rows = await queryRows<EventRow>(
        this.db,
        sql`select id, type, space_id as "spaceId", project_id as "projectId", task_id as "taskId", actor_id as "actorId",
                   user_id as "userId", editors_only as "editorsOnly", at, payload
            from events where organization_id = ${org} and id > ${from} order by id limit ${this.batch}`,
      );
      if (rows.length === 0) return;
      const events = rows.map((row) => recordOf(org, row));
      const audience = await audienceOf(this.db, org, subs, events);
      const places = new Map(events.map((e) => [e.id, orgWide(e) ? { projectIds: e.projectId === null ? [] : [e.projectId], spaceIds: null } : audience.placeOf(e)]));
      const last = Number(rows[rows.length - 1]!.id);
      this.measureLag(org, events);
      const current = this.byOrg.get(org);
      for (const sub of subs) {
        // Gone, or restarting (its cursor being decided), or resumed further back while we read:
        // the next round serves it.
        if (!current?.has(sub) || sub.cursor < from) continue;
        if (!audience.valid(sub)) {
          this.drop(sub, CLOSE_UNAUTHORIZED, 'credential or membership no longer valid');
          continue;
        }
        this.deliver(sub, events, audience, places);
        sub.cursor = Math.max(sub.cursor, last);
        if (sub.buffered() > this.options.maxBufferedBytes) this.drop(sub, CLOSE_SLOW_CONSUMER, 'client too slow; reconnect and resume');
      }
      if (rows.length < this.batch && subs.every((s) => s.cursor >= last)) return;
    }
  }

  private measureLag(org: number, events: RecordedEvent[]): void {
    const newest = this.newest.get(org) ?? Infinity;
    const now = Date.now();
    for (const e of events) if (e.id > newest) this.onDispatched?.((now - Date.parse(e.at)) / 1000);
    if (events.length > 0 && this.newest.has(org)) this.newest.set(org, Math.max(newest, events[events.length - 1]!.id));
  }

  private deliver(sub: Subscriber, events: RecordedEvent[], audience: Audience, places: Map<number, Place>): void {
    for (const event of events) {
      if (event.id <= sub.cursor) continue;
      if (!mayReceive(audience, sub, event) || !wanted(sub, event, places.get(event.id)!)) continue;
      sub.send(envelopeOf(event));
    }
  }
}

const idOrNull = (v: number | null): number | null => (v === null ? null : Number(v));

/** A log row as the event it records (driver values normalized once per batch, not per client). */
const recordOf = (org: number, row: EventRow): RecordedEvent => ({
  organizationId: org,
  id: Number(row.id),
  type: row.type as RecordedEvent['type'],
  spaceId: idOrNull(row.spaceId),
  projectId: idOrNull(row.projectId),
  taskId: idOrNull(row.taskId),
  actorId: idOrNull(row.actorId),
  userId: idOrNull(row.userId),
  editorsOnly: row.editorsOnly,
  at: new Date(row.at).toISOString(),
  payload: row.payload,
});

/**
 * Departures, judged by who was there. What is gone cannot say who could read it: a deleted space
 * (no members left), a project sent to the trash and a deleted reglament (their links to other
 * spaces go with them) announce their bare `{id}` to the whole organization, a draft's deletion
 * still to editors only. A project unlinked from a space is judged by that space, and a member
 * removed from a space hears of it although no longer a member.
 */
const orgWide = (e: RecordedEvent) =>
  e.type === 'space.deleted' || e.type === 'project.deleted' || (e.type === 'reglament.deleted' && !e.editorsOnly);

function mayReceive(audience: Audience, sub: Subscriber, event: RecordedEvent): boolean {
  if (orgWide(event)) return audience.mayRead(sub, { ...event, spaceId: null, projectId: null });
  switch (event.type) {
    case 'project.unlinked':
      return audience.mayRead(sub, { ...event, projectId: null });
    case 'space.member.removed':
      return (event.payload as { userId?: unknown } | null)?.userId === sub.userId || audience.mayRead(sub, event);
    default:
      return audience.mayRead(sub, event);
  }
}

/** A subscription naming spaces matches an event of a project linked into one of them, too. */
function wanted(sub: Subscriber, e: RecordedEvent, place: Place): boolean {
  if (sub.subscriptions === null) return true;
  const any = (list: number[] | undefined, values: number[] | null) => !list || list.length === 0 || values === null || values.some((v) => list.includes(v));
  const taskIds = e.taskId === null ? [] : [e.taskId];
  return sub.subscriptions.some(
    (s) => any(s.spaceIds, place.spaceIds) && any(s.projectIds, place.projectIds) && any(s.taskIds, taskIds) && matchesTypes(e.type, s.types),
  );
}
