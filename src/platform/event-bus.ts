import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { NOTIFY_CHANNEL, type TransactionalListener } from './events.js';

type CommitSubscriber = (organizationIds: ReadonlySet<number>) => void;

/**
 * The app's event plumbing: listeners that run inside write transactions, and subscribers told
 * after commit which organizations have new events (the real-time hub, the webhook sender). On
 * PostgreSQL other instances' commits arrive through LISTEN/NOTIFY, so several processes on one
 * database behave as one; the embedded database has one process and needs nothing more.
 */
export class EventBus {
  readonly listeners: TransactionalListener[] = [];
  private readonly subscribers = new Set<CommitSubscriber>();
  private listener: pg.Client | null = null;
  private closed = false;

  addListener(listener: TransactionalListener): void {
    this.listeners.push(listener);
  }

  onCommitted(fn: CommitSubscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
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

  /** Subscribes to other instances' commits; reconnects with a delay if the connection drops. */
  async listenAcrossInstances(connectionString: string, log: FastifyBaseLogger): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString });
    const retry = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = null;
      setTimeout(() => void this.listenAcrossInstances(connectionString, log).catch(() => {}), 1000).unref();
    };
    client.on('error', (err) => {
      log.warn({ err }, 'event listener connection lost; reconnecting');
      retry();
    });
    client.on('end', retry);
    client.on('notification', (msg) => {
      const org = Number(msg.payload);
      if (Number.isInteger(org) && org > 0) this.committed(new Set([org]));
    });
    this.listener = client;
    await client.connect();
    await client.query(`listen ${NOTIFY_CHANNEL}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    const client = this.listener;
    this.listener = null;
    if (client) await client.end().catch(() => {});
  }
}
