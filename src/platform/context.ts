import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';
import { withTransaction } from '../db/tx.js';
import { actorOf, type Actor } from './auth.js';
import { flushEvents, openEventBuffer, type RecordedEvent } from './events.js';
import { scopesOf, type Change } from './read-cache.js';
import { notifyChange } from './event-bus.js';

/** What every use case receives: who acts, where to query, and what to do once the write commits. */
export interface Ctx {
  actor: Actor;
  db: Queryable;
  afterCommit(fn: () => void | Promise<void>): void;
  onRollback(fn: () => void | Promise<void>): void;
}

/** What a job's write receives: no actor, the organization it works in. */
export type SystemCtx = Omit<Ctx, 'actor'> & { organizationId: number };

/**
 * One transaction that records its events: everything emitted is written to the change log just
 * before commit, and the event bus is told after commit.
 */
function transact<T>(
  app: FastifyInstance,
  organizationId: number,
  actorId: number | null,
  log: FastifyBaseLogger,
  fn: (hooks: Omit<Ctx, 'actor'>) => Promise<T>,
  db = app.database.db,
): Promise<T> {
  const written = new Set([organizationId]);
  // Until the commit says otherwise, every organization touched changed as a whole.
  let committed: Change | null = null;
  return withTransaction(
    db,
    async ({ tx, afterCommit, onRollback }) => {
      openEventBuffer(tx, organizationId, actorId);
      const result = await fn({ db: tx, afterCommit, onRollback });
      // Other instances learn of the change on commit only (NOTIFY is transactional); it rides on the
      // statement that records the events when there are any.
      const postgres = app.database.kind === 'postgres';
      let sent: string | null = null;
      const notify = (events: readonly RecordedEvent[]) => notifyChange((sent = app.events.notice(changeOf(written, events, actorId))));
      const flushed = await flushEvents(tx, app.events.listeners, { notify: postgres ? notify : undefined, commitWithLast: postgres, quiet: app.events.quiet });
      const events = flushed.events;
      const change = changeOf(written, events, actorId);
      for (const org of change.organizationIds) written.add(org);
      // A later round of events (rare) can widen what the first round's NOTIFY said. (A flush that
      // committed had one round: its NOTIFY said it all.)
      const notice = app.events.notice(change);
      if (postgres && notice !== sent && !flushed.committed) await queryRows(tx, notifyChange(notice), { prepare: 'notify-change' });
      const organizations = new Set(events.map((e) => e.organizationId));
      afterCommit(() => {
        committed = change;
        if (organizations.size > 0) app.events.committed(organizations);
      });
      return result;
    },
    (err) => log.error({ err }, 'after-commit handler failed'),
  ).finally(() => {
    // After the outcome is known, whatever it is: a read that began before now is not kept.
    app.events.changed(committed ?? { organizationIds: written, userId: actorId });
  });
}

/** What a transaction changed: the organizations it wrote to, and for those whose events allow it, which parts. */
function changeOf(written: ReadonlySet<number>, events: readonly RecordedEvent[], userId: number | null): Change {
  const organizationIds = new Set(written);
  for (const e of events) organizationIds.add(e.organizationId);
  return { organizationIds, userId, scoped: scopesOf(events) };
}

/** Runs a writing use case in one transaction as the request's actor. */
export function write<T>(app: FastifyInstance, request: FastifyRequest, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  const actor = actorOf(request);
  return transact(app, actor.organizationId, actor.userId, request.log, (hooks) => fn({ actor, ...hooks }));
}

/**
 * Runs a write as a user who is not making an HTTP request (a reply arriving from the messenger):
 * the same transaction, history and events as if they had.
 */
export function writeAs<T>(app: FastifyInstance, actor: Actor, log: FastifyBaseLogger, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  return transact(app, actor.organizationId, actor.userId, log, (hooks) => fn({ actor, ...hooks }));
}

/**
 * writeAs for long background work (an organization import): on the long-work pool, whose
 * statements may run DATABASE_JOB_QUERY_TIMEOUT_MS instead of a request's limit.
 */
export function longWriteAs<T>(app: FastifyInstance, actor: Actor, log: FastifyBaseLogger, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  return transact(app, actor.organizationId, actor.userId, log, (hooks) => fn({ actor, ...hooks }), app.database.jobDb);
}

/** Runs a write of the service itself (a scheduled job, a delivery worker): its events have no actor. */
export function systemWrite<T>(app: FastifyInstance, organizationId: number, fn: (ctx: SystemCtx) => Promise<T>): Promise<T> {
  return transact(app, organizationId, null, app.log, (hooks) => fn({ organizationId, ...hooks }));
}

/**
 * A write about one user by the service itself (an operator's command-line change to an account):
 * every instance forgets what it cached of that user, as after the user's own write.
 */
export function writeForUser<T>(app: FastifyInstance, userId: number, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return transact(app, 0, userId, app.log, (hooks) => fn(hooks.db));
}

/**
 * A write before anyone is signed in (registration): its events are scoped with `scopeEvents` once
 * the transaction knows the user and the organization.
 */
export function unscopedWrite<T>(app: FastifyInstance, log: FastifyBaseLogger, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return transact(app, 0, null, log, (hooks) => fn(hooks.db));
}

/**
 * A write about one user made without their session (an OAuth callback, a messenger binding), filed
 * under the organization they act in (the active one, else any they are an active member of) so that
 * its events reach them. `organizationId` is null for a user in no organization: the write then
 * records no events.
 */
export async function writeAboutUser<T>(
  app: FastifyInstance,
  userId: number,
  fn: (db: Queryable, organizationId: number | null) => Promise<T>,
): Promise<T> {
  const [home] = await queryRows<{ org: number | null }>(
    app.database.db,
    sql`select coalesce(u.active_organization_id,
          (select om.organization_id from organization_members om where om.user_id = u.id and om.active and om.deleted_at is null limit 1)) as org
        from users u where u.id = ${userId}`,
  );
  if (home?.org == null) return writeForUser(app, userId, (db) => fn(db, null));
  const org = Number(home.org);
  return systemWrite(app, org, (sys) => fn(sys.db, org));
}

/**
 * Runs a reading use case without an explicit transaction: one statement is already consistent,
 * and skipping BEGIN/COMMIT saves two round trips on the hottest paths.
 */
export function read<T>(app: FastifyInstance, request: FastifyRequest, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  const actor = actorOf(request);
  return fn({
    actor,
    db: app.database.db,
    afterCommit: (f) => void Promise.resolve().then(f),
    onRollback: () => {},
  });
}

/** `read` for a caller that is not an HTTP request (an MCP tool acting as its token's user). */
export function readAs<T>(app: FastifyInstance, actor: Actor, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  return fn({
    actor,
    db: app.database.db,
    afterCommit: (f) => void Promise.resolve().then(f),
    onRollback: () => {},
  });
}
