import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { TransactionalListener } from './events.js';
import { QuietOrganizations } from './quiet-organizations.js';
import type { Change } from './read-cache.js';

type CommitSubscriber = (organizationIds: ReadonlySet<number>) => void;
type ChangeSubscriber = (change: Change) => void;

const NOTIFY_CHANNEL = 'workboard_events';

interface Notice extends Change {
  instance: string;
}

// PostgreSQL takes NOTIFY payloads below 8000 bytes; past this a change is told as whole organizations.
const MAX_SCOPED_NOTICE = 7000;

function parseNotice(payload: string | undefined): Notice | null {
  const m = /^([0-9a-f]+):([\d,]+);(\d*)(?:;([\w.=/]*))?$/.exec(payload ?? '');
  if (!m) return null;
  const notice: Notice = { instance: m[1]!, organizationIds: m[2]!.split(',').filter(Boolean).map(Number), userId: m[3] ? Number(m[3]) : null };
  if (m[4] !== undefined) {
    notice.scoped = new Map(
      m[4].split('/').filter(Boolean).map((part) => {
        const [org, keys] = part.split('=');
        return [Number(org), (keys ?? '').split('.').filter(Boolean)] as const;
      }),
    );
  }
  return notice;
}

/** The statement a PostgreSQL write transaction ends with: delivered to every listener on commit only. */
export const notifyChange = (notice: string) => sql`select pg_notify(${NOTIFY_CHANNEL}, ${notice})`;

/**
 * The app's event plumbing: listeners that run inside write transactions, and subscribers told
 * after commit which organizations have new events (the real-time hub, the webhook sender). On
 * PostgreSQL other instances' commits arrive through LISTEN/NOTIFY, so several processes on one
 * database behave as one; the embedded database has one process and needs nothing more.
 */
export class EventBus {
  readonly listeners: TransactionalListener[] = [];
  /** Organizations without webhooks or automation rules to read on a write (see QuietOrganizations). */
  readonly quiet = new QuietOrganizations();
  /** Names this instance in its notices: its own commits were already applied when they committed. */
  private readonly instance = randomBytes(6).toString('hex');
  private readonly subscribers = new Set<CommitSubscriber>();
  private readonly changeSubscribers = new Set<ChangeSubscriber>();
  private listener: pg.Client | null = null;
  private closed = false;
  /** Failed attempts since the listener last listened (the delay grows with them). */
  private failures = 0;
  /** Called with true once other instances' changes arrive, with false when they may be missed. */
  onListening: (listening: boolean) => void = () => {};

  addListener(listener: TransactionalListener): void {
    this.listeners.push(listener);
  }

  onCommitted(fn: CommitSubscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /**
   * What one write transaction tells the other instances: `instance:orgs;user` (org 0 = unknown),
   * then `;org=part.part/…` for the organizations changed only in those parts.
   */
  notice(change: Change): string {
    const whole = `${this.instance}:${[...change.organizationIds].join(',')};${change.userId ?? ''}`;
    if (!change.scoped) return whole;
    const scoped = `${whole};${[...change.scoped].map(([org, parts]) => `${org}=${parts.join('.')}`).join('/')}`;
    return scoped.length <= MAX_SCOPED_NOTICE ? scoped : whole;
  }

  /** Every committed write transaction, of this instance or (on PostgreSQL) of another. */
  onChange(fn: ChangeSubscriber): void {
    this.changeSubscribers.add(fn);
  }

  changed(change: Change): void {
    for (const fn of this.changeSubscribers) fn(change);
  }

  committed(organizationIds: ReadonlySet<number>): void {
    for (const fn of this.subscribers) {
      try {
        fn(organizationIds);
      } catch {
        // A subscriber's failure must not reach the request that committed.
      }
    }
  }

  /**
   * Subscribes to other instances' commits on a session of its own (LISTEN needs one: behind a
   * transaction pooler this is DATABASE_DIRECT_URL). A lost connection is opened again with a
   * growing delay (up to 5 s), logged once per loss; never thrown, so the start of an instance
   * does not hang on it. When listening again, `onListening(true)` tells those who rely on it to
   * catch up what they missed.
   */
  async listenAcrossInstances(connectionString: string, log: FastifyBaseLogger, timeoutMs = 5000): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    const retry = (err?: unknown) => {
      if (this.closed || this.listener !== client) return;
      this.listener = null;
      this.onListening(false);
      if (this.failures++ === 0) log.warn({ reason: (err as Error | undefined)?.message ?? 'connection ended' }, 'event listener connection lost; reconnecting');
      const delay = Math.min(5000, 250 * 2 ** Math.min(this.failures, 5));
      setTimeout(() => void this.listenAcrossInstances(connectionString, log, timeoutMs), delay).unref();
    };
    client.on('error', (err) => retry(err));
    client.on('end', () => retry());
    client.on('notification', (msg) => {
      const change = parseNotice(msg.payload);
      if (!change || change.instance === this.instance) return;
      this.changed(change);
      const organizations = new Set([...change.organizationIds].filter((org) => org > 0));
      if (organizations.size > 0) this.committed(organizations);
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`listen ${NOTIFY_CHANNEL}`);
    } catch (err) {
      void client.end().catch(() => {});
      return retry(err);
    }
    if (this.listener !== client) return;
    if (this.failures > 0) log.info('event listener connected again');
    this.failures = 0;
    // Changes made while no connection listened are unknown: those who rely on them start afresh.
    this.onListening(true);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    this.changeSubscribers.clear();
    this.onListening(false);
    const client = this.listener;
    this.listener = null;
    if (client) await client.end().catch(() => {});
  }
}
