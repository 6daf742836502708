import { sql, type SQL } from 'drizzle-orm';
import { queryRows, queryRowsAndCommit, type Queryable } from '../db/client.js';
import type { EventType } from './event-types.js';
import { busySql, type QuietOrganizations } from './quiet-organizations.js';

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
 * Reacts to each round of a transaction's events, inside the transaction, in two phases so that the
 * organization's change-log counter (a row lock held until COMMIT) is taken as late as possible:
 * the listener itself runs before the events have ids and reads what it needs; the write it answers
 * runs once they have them (`e.id`, `e.at` are then final on the same objects) and may emit more
 * (notifications emit notification.created). Everything written commits or rolls back with the change.
 */
export type TransactionalListener = (db: Queryable, events: RecordedEvent[]) => Promise<ListenerWrite | ListenerRead | void>;
export type ListenerWrite = (emitMore: (e: EventInput) => void) => Promise<void>;

/**
 * A listener's read, declared rather than run: the reads of every listener of a round go to the
 * database as one statement (each answered as a JSON array of its rows: numbers, not bigint
 * strings; timestamps as ISO text), then `decide` acts on its rows as the listener would have.
 */
export interface ListenerRead<Row = Record<string, unknown>> {
  read: SQL;
  decide(rows: Row[]): Promise<ListenerWrite | void>;
  /** It finds nothing for an organization without enabled webhooks and automation rules (see QuietOrganizations). */
  quiet?: boolean;
}

/** Declares a listener's read (see ListenerRead). */
export const listenerRead = <Row>(read: SQL, decide: (rows: Row[]) => Promise<ListenerWrite | void>, options: { quiet?: boolean } = {}): ListenerRead =>
  ({ read, decide, quiet: options.quiet === true }) as ListenerRead;

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

export interface FlushOptions {
  /**
   * A NOTIFY for other instances, folded into the statement that records the first round (no round
   * trip of its own); told that round's events.
   */
  notify?: (events: readonly RecordedEvent[]) => SQL;
  /**
   * Nothing follows in the transaction: when one round settles everything (no listener writes), its
   * record statement goes with the COMMIT right behind it (db/client.ts queryRowsAndCommit), so the
   * organization's counter row is held for the commit alone.
   */
  commitWithLast?: boolean;
  /** The instance's knowledge of organizations without listeners to read (none: always read). */
  quiet?: QuietOrganizations;
}

/** What flushEvents recorded, and whether the transaction already committed with it. */
export interface Flushed {
  events: RecordedEvent[];
  committed: boolean;
}

/**
 * Records every event emitted in this transaction and lets the listeners react, round after round
 * (what a listener's write emits goes to the listeners again). Per round: payloads completed,
 * listeners read, then one statement takes the ids and inserts the rows (the counter's row lock is
 * held from there to COMMIT, so only that statement, the listeners' writes and COMMIT serialize the
 * organization's writers), then the listeners write. Answers every recorded event.
 */
export async function flushEvents(db: Queryable, listeners: TransactionalListener[], options: FlushOptions = {}): Promise<Flushed> {
  const buffer = buffers.get(db);
  const recorded: RecordedEvent[] = [];
  let committed = false;
  if (!buffer) return { events: recorded, committed };
  for (let round = 0; buffer.pending.length > 0; round++) {
    if (round >= MAX_ROUNDS) throw new Error('event listeners keep emitting: a listener reacts to its own events');
    const pending = buffer.pending.splice(0);
    await complete(db, pending);
    const events = pending.filter((e) => !e.dropped).map(provisional);
    const writes: ListenerWrite[] = [];
    const reads: ListenerRead[] = [];
    for (const listener of listeners) {
      const answer = await listener(db, events);
      if (typeof answer === 'function') writes.push(answer);
      else if (answer) reads.push(answer);
    }
    // Reads that would find nothing are not sent; the record statement checks that still holds.
    const assumed = quietVersions(events, options.quiet);
    const skipped = assumed ? reads.filter((r) => r.quiet) : [];
    for (const r of skipped) {
      const write = await r.decide([]);
      if (write !== undefined) writes.push(write);
    }
    for (const write of await readTogether(db, skipped.length ? reads.filter((r) => !r.quiet) : reads)) if (write !== undefined) writes.push(write);
    recorded.push(...events);
    const notify = round === 0 && options.notify ? options.notify(events) : null;
    const last = round === 0 && writes.length === 0 && options.commitWithLast === true;
    committed = await record(db, events, notify, last, options.quiet, skipped.length ? assumed : null);
    for (const write of writes) await write((e) => emit(db, e));
  }
  buffers.delete(db);
  return { events: recorded, committed };
}

// What listeners see before the ids are taken; record() fills in id and at on the same object.
const provisional = (e: PendingEvent): RecordedEvent => ({
  organizationId: e.organizationId,
  id: 0,
  type: e.type,
  spaceId: e.spaceId ?? null,
  projectId: e.projectId ?? null,
  taskId: e.taskId ?? null,
  actorId: e.actorId ?? null,
  userId: e.userId ?? null,
  editorsOnly: e.editorsOnly ?? false,
  at: '',
  payload: e.payload ?? null,
});

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

/** The listeners versions every organization of the round was seen quiet at, or null when one was not. */
function quietVersions(events: RecordedEvent[], quiet: QuietOrganizations | undefined): Map<number, number> | null {
  if (!quiet || events.length === 0) return null;
  const versions = new Map<number, number>();
  for (const e of events) {
    const version = quiet.versionOf(e.organizationId);
    if (version === undefined) return null;
    versions.set(e.organizationId, version);
  }
  return versions;
}

/** Runs the listeners' declared reads as one statement and hands each its rows. */
async function readTogether(db: Queryable, reads: ListenerRead[]): Promise<Array<ListenerWrite | void>> {
  if (reads.length === 0) return [];
  const columns = sql.join(
    reads.map((r, i) => sql`(select coalesce(jsonb_agg(x), '[]'::jsonb) from (${r.read}) x) as ${sql.raw(`r${i}`)}`),
    sql`, `,
  );
  const [row] = await queryRows<Record<string, Record<string, unknown>[]>>(db, sql`select ${columns}`, { prepare: 'listener-reads' });
  const writes: Array<ListenerWrite | void> = [];
  for (const [i, r] of reads.entries()) writes.push(await r.decide(row![`r${i}`] ?? []));
  return writes;
}

/**
 * Gives the events their ids and inserts them: one statement per organization (the counter's upsert,
 * whose row lock orders the organization's writers, and the insert), carrying the NOTIFY when given.
 */
async function record(
  db: Queryable,
  events: RecordedEvent[],
  notify: SQL | null,
  commitWithLast: boolean,
  quiet: QuietOrganizations | undefined,
  assumed: Map<number, number> | null,
): Promise<boolean> {
  const byOrg = new Map<number, RecordedEvent[]>();
  for (const e of events) {
    const batch = byOrg.get(e.organizationId);
    if (batch) batch.push(e);
    else byOrg.set(e.organizationId, [e]);
  }
  const orgs = [...byOrg.keys()].sort((a, b) => a - b);
  if (orgs.length === 0 && notify) await db.execute(notify);
  let committed = false;
  for (const [i, org] of orgs.entries()) {
    const batch = byOrg.get(org)!;
    const rows = batch.map((e, index) => ({
      i: index,
      type: e.type,
      space_id: e.spaceId,
      project_id: e.projectId,
      task_id: e.taskId,
      actor_id: e.actorId,
      user_id: e.userId,
      editors_only: e.editorsOnly,
      payload: e.payload,
    }));
    const withNotify = notify !== null && i === 0;
    // Listener reads skipped: the statement fails unless the organization's listeners version is still the one assumed.
    const expected = assumed?.get(org);
    const guard = expected === undefined ? sql`` : sql`, g as (select listeners_unchanged(c.listeners_version, ${expected}) as ok from c)`;
    const busy = expected === undefined ? busySql(org) : sql`false`;
    const statement = sql`with c as (
            insert into event_counters (organization_id, last_id) values (${org}, ${rows.length})
            on conflict (organization_id) do update set last_id = event_counters.last_id + excluded.last_id
            returning last_id, listeners_version)${guard},
          ins as (
            insert into events (organization_id, id, type, space_id, project_id, task_id, actor_id, user_id, editors_only, payload)
            select ${org}, c.last_id - ${rows.length} + 1 + r.i, r.type, r.space_id, r.project_id, r.task_id, r.actor_id, r.user_id, r.editors_only,
                   coalesce(r.payload, 'null'::jsonb)
            from c${expected === undefined ? sql`` : sql` join g on g.ok`}, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
              as r(i int, type text, space_id bigint, project_id bigint, task_id bigint, actor_id bigint, user_id bigint, editors_only boolean, payload jsonb)
            returning id, at)
          ${withNotify ? sql`, n as (${notify}) ` : sql``}select ins.id, ins.at, ${busy} as busy,
            -- As of the statement's snapshot, the one \`busy\` was read in (the upsert's row may be a later commit's).
            coalesce((select v.listeners_version from event_counters v where v.organization_id = ${org}), 0) as version
          from ${withNotify ? sql`n cross join c left join ins on true` : sql`ins cross join c`}`;
    const options = { prepare: `events-record${withNotify ? '-notify' : ''}${expected === undefined ? '' : '-quiet'}` };
    const lastOne = commitWithLast && i === orgs.length - 1;
    type Inserted = { id: number; at: Date | string; version: number | string; busy: boolean };
    let early: Inserted[] | null = null;
    let inserted: Inserted[];
    try {
      early = lastOne ? await queryRowsAndCommit<Inserted>(db, statement, options) : null;
      inserted = early ?? (await queryRows<Inserted>(db, statement, options));
    } catch (error) {
      // A changed version (or any failure): read the listeners again on the retry.
      if (expected !== undefined) quiet?.forget(org);
      throw error;
    }
    committed = early !== null;
    if (inserted[0]) quiet?.learn(org, Number(inserted[0].version), inserted[0].busy);
    // Ids were taken in the batch's order.
    inserted.sort((a, b) => Number(a.id) - Number(b.id));
    batch.forEach((e, k) => {
      e.id = Number(inserted[k]!.id);
      e.at = new Date(inserted[k]!.at).toISOString();
    });
  }
  return committed;
}
