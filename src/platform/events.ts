import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';
import type { EventType } from './event-types.js';

export type { EventType };

/**
 * The change log. A use case calls `emit` in its transaction; `write()` records everything emitted
 * (one row per event, ids from the organization's counter) just before the transaction commits, and
 * wakes the real-time hub once it has. So an event exists if and only if its change committed.
 */

/** What a use case says happened. Ids that do not apply are left out (null in the envelope). */
export interface EventInput {
  type: EventType;
  spaceId?: number | null;
  projectId?: number | null;
  taskId?: number | null;
  /** Only this user receives the event (notification.*). */
  userId?: number | null;
  /** Only editors and admins of the event's space receive it (a draft's changes). */
  editorsOnly?: boolean;
  /** Who acted; defaults to the transaction's actor, null for automation and scheduled jobs. */
  actorId?: number | null;
  /** The resource as its read route answers it; `{id}` for deletes. */
  payload: unknown;
  /** Fills the payload (and ids) at flush time for many events at once, e.g. the task form. */
  completer?: Completer;
  /** Defaults to the transaction's organization. */
  organizationId?: number;
}

export interface PendingEvent extends Omit<EventInput, 'organizationId'> {
  organizationId: number;
  /** Set by a completer when the resource vanished in the same transaction: nothing is recorded. */
  dropped?: boolean;
}

/** Completes the payloads of a batch of pending events with a fixed number of queries. */
export interface Completer {
  name: string;
  complete(db: Queryable, organizationId: number, events: PendingEvent[]): Promise<void>;
}

/** A committed (or about to commit) row of the change log. */
export interface RecordedEvent {
  organizationId: number;
  id: number;
  type: EventType;
  spaceId: number | null;
  projectId: number | null;
  taskId: number | null;
  actorId: number | null;
  userId: number | null;
  editorsOnly?: boolean;
  at: string;
  payload: unknown;
}

/** The form clients and webhook receivers get (routes.md "Real-time events"). */
export interface EventEnvelope {
  id: number;
  type: string;
  organizationId: number;
  spaceId: number | null;
  projectId: number | null;
  taskId: number | null;
  actorId: number | null;
  at: string;
  payload: unknown;
}

export const envelopeOf = (e: RecordedEvent): EventEnvelope => ({
  id: e.id,
  type: e.type,
  organizationId: e.organizationId,
  spaceId: e.spaceId,
  projectId: e.projectId,
  taskId: e.taskId,
  actorId: e.actorId,
  at: e.at,
  payload: e.payload,
});

/**
 * Runs inside the transaction with each round of recorded events and may emit more (notifications
 * emit notification.created; webhooks queue deliveries). What it writes commits or rolls back with
 * the change that caused it.
 */
export type TransactionalListener = (db: Queryable, events: RecordedEvent[], emitMore: (e: EventInput) => void) => Promise<void>;

interface Buffer {
  organizationId: number;
  actorId: number | null;
  pending: PendingEvent[];
}

// The open buffer of each write transaction, keyed by the transaction object the services hold as
// `ctx.db`, so that shared writers (history records) can emit without threading another argument.
const buffers = new WeakMap<object, Buffer>();

export function openEventBuffer(db: Queryable, organizationId: number, actorId: number | null): void {
  buffers.set(db, { organizationId, actorId, pending: [] });
}

/**
 * Sets whose and which organization's events these are, for a transaction that learns it only on
 * the way (registration creates the acting user and finds the organization it joins).
 */
export function scopeEvents(db: Queryable, organizationId: number, actorId: number | null): void {
  const buffer = buffers.get(db);
  if (!buffer) throw new Error('scopeEvents outside a write transaction');
  buffer.organizationId = organizationId;
  buffer.actorId = actorId;
}

/** Records that something changed, in the caller's write transaction. */
export function emit(target: Queryable | { db: Queryable }, input: EventInput): void {
  const db = 'db' in target && !('execute' in target) ? target.db : (target as Queryable);
  const buffer = buffers.get(db);
  // A write path that emits outside write()/systemWrite() is a programming error: fail loudly.
  if (!buffer) throw new Error(`emit(${input.type}) outside a write transaction`);
  buffer.pending.push({
    ...input,
    organizationId: input.organizationId ?? buffer.organizationId,
    actorId: input.actorId === undefined ? buffer.actorId : input.actorId,
  });
}

/** Like emit, for many events of one kind. */
export function emitAll(target: Queryable | { db: Queryable }, inputs: EventInput[]): void {
  for (const input of inputs) emit(target, input);
}

/** How many events the transaction has emitted so far (see discardEventsSince). */
export function eventMark(db: Queryable): number {
  return buffers.get(db)?.pending.length ?? 0;
}

/**
 * Forgets what was emitted after `mark`: for a transaction that rolled back to a savepoint (an
 * automation run whose action failed), so that events of undone changes are never recorded.
 */
export function discardEventsSince(db: Queryable, mark: number): void {
  buffers.get(db)?.pending.splice(mark);
}

const MAX_ROUNDS = 4;

/**
 * Records every event emitted in this transaction and lets the listeners react, round after round
 * (a listener's events go to the listeners again). Answers the organizations that got events.
 */
export async function flushEvents(db: Queryable, listeners: TransactionalListener[]): Promise<Set<number>> {
  const buffer = buffers.get(db);
  const touched = new Set<number>();
  if (!buffer) return touched;
  for (let round = 0; buffer.pending.length > 0; round++) {
    if (round >= MAX_ROUNDS) throw new Error('event listeners keep emitting: a listener reacts to its own events');
    const pending = buffer.pending.splice(0);
    await complete(db, pending);
    const recorded = await record(db, pending.filter((e) => !e.dropped));
    for (const e of recorded) touched.add(e.organizationId);
    for (const listener of listeners) await listener(db, recorded, (e) => emit(db, e));
  }
  buffers.delete(db);
  return touched;
}

async function complete(db: Queryable, pending: PendingEvent[]): Promise<void> {
  const groups = new Map<string, { completer: Completer; byOrg: Map<number, PendingEvent[]> }>();
  for (const e of pending) {
    if (!e.completer) continue;
    let group = groups.get(e.completer.name);
    if (!group) groups.set(e.completer.name, (group = { completer: e.completer, byOrg: new Map() }));
    const list = group.byOrg.get(e.organizationId) ?? [];
    list.push(e);
    group.byOrg.set(e.organizationId, list);
  }
  for (const { completer, byOrg } of groups.values()) {
    for (const [org, events] of byOrg) await completer.complete(db, org, events);
  }
}

interface Row {
  organizationId: number;
  id: number;
  at: Date | string;
}

/** Takes ids from each organization's counter (row-locked until commit) and inserts the rows. */
async function record(db: Queryable, pending: PendingEvent[]): Promise<RecordedEvent[]> {
  const byOrg = new Map<number, PendingEvent[]>();
  for (const e of pending) byOrg.set(e.organizationId, [...(byOrg.get(e.organizationId) ?? []), e]);
  const out: RecordedEvent[] = [];
  for (const [org, events] of [...byOrg].sort(([a], [b]) => a - b)) {
    const [counter] = await queryRows<{ lastId: number }>(
      db,
      sql`insert into event_counters (organization_id, last_id) values (${org}, ${events.length})
          on conflict (organization_id) do update set last_id = event_counters.last_id + excluded.last_id
          returning last_id as "lastId"`,
    );
    const first = Number(counter!.lastId) - events.length + 1;
    const rows = events.map((e, i) => ({
      id: first + i,
      type: e.type,
      space_id: e.spaceId ?? null,
      project_id: e.projectId ?? null,
      task_id: e.taskId ?? null,
      actor_id: e.actorId ?? null,
      user_id: e.userId ?? null,
      editors_only: e.editorsOnly ?? false,
      payload: e.payload ?? null,
    }));
    const inserted = await queryRows<Row>(
      db,
      sql`insert into events (organization_id, id, type, space_id, project_id, task_id, actor_id, user_id, editors_only, payload)
          select ${org}, r.id, r.type, r.space_id, r.project_id, r.task_id, r.actor_id, r.user_id, r.editors_only, coalesce(r.payload, 'null'::jsonb)
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            as r(id bigint, type text, space_id bigint, project_id bigint, task_id bigint, actor_id bigint, user_id bigint, editors_only boolean, payload jsonb)
          returning organization_id as "organizationId", id, at`,
    );
    const atById = new Map(inserted.map((r) => [Number(r.id), new Date(r.at).toISOString()]));
    rows.forEach((r, i) =>
      out.push({
        organizationId: org,
        id: r.id,
        type: events[i]!.type,
        spaceId: r.space_id,
        projectId: r.project_id,
        taskId: r.task_id,
        actorId: r.actor_id,
        userId: r.user_id,
        editorsOnly: r.editors_only,
        at: atById.get(r.id)!,
        payload: r.payload,
      }),
    );
  }
  return out;
}
