import { sql, type SQL, type Name } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';

/**
 * One durable queue's claim, lease and retry rules, for any table that holds its items as rows with
 * a status ('pending' until settled), an attempt count, a due time and an error column. Each queue
 * (email outbox; later webhook deliveries, messenger messages, …) keeps its own table and its own
 * way to do the work; this module only decides who does it and when.
 *
 * - A claim takes due rows with FOR UPDATE SKIP LOCKED in one statement that also counts the
 *   attempt and moves the due time forward by the lease: instances share a queue without waiting
 *   for each other, and none takes a row another one holds.
 * - A worker that dies mid-item leaves its row claimed until the lease runs out; then any instance
 *   takes it again (at least once; the caller keeps the item's identity, e.g. a Message-ID, so a
 *   receiver can tell a repeat).
 * - Settling a row checks the attempt it claimed, so a worker whose lease ran out cannot record
 *   over a newer attempt's outcome.
 * - A temporary failure waits the schedule's next delay; when the schedule is spent, or for a
 *   permanent failure, the row is failed with its reason.
 */
export interface QueueShape {
  /** The table (a trusted identifier of ours, never input). */
  table: string;
  /** The timestamp column that says when the row is next due; a claim moves it by the lease. */
  due?: string;
  /** The text column for the last failure's reason. */
  error?: string;
  /** The status a row gets once its work is done. */
  done?: string;
}

export interface Claim {
  id: number;
  /** The attempt this claim is (1 for the first): settle with it. */
  attempt: number;
}

export type Settled = 'done' | 'retrying' | 'failed' | 'stale';

export class DurableQueue {
  private readonly table: Name;
  private readonly due: Name;
  private readonly error: Name;
  private readonly done: string;

  constructor(
    shape: QueueShape,
    private readonly options: { leaseMs: number; retrySchedule: readonly number[] },
  ) {
    this.table = sql.identifier(shape.table);
    this.due = sql.identifier(shape.due ?? 'next_attempt_at');
    this.error = sql.identifier(shape.error ?? 'last_error');
    this.done = shape.done ?? 'sent';
  }

  /** Takes up to `limit` due rows (oldest due first), `where` narrowing them (a condition on the queue's own columns). */
  async claim(db: Queryable, limit: number, where: SQL = sql`true`): Promise<Claim[]> {
    const rows = await queryRows<{ id: number; attempts: number }>(
      db,
      sql`with due as (
            select id from ${this.table}
            where status = 'pending' and ${this.due} <= now() and ${where}
            order by ${this.due}, id
            limit ${limit}
            for update skip locked)
          update ${this.table} q set ${this.due} = now() + make_interval(secs => ${this.options.leaseMs / 1000}),
            attempts = q.attempts + 1, updated_at = now()
          from due where q.id = due.id
          returning q.id, q.attempts`,
    );
    return rows.map((r) => ({ id: Number(r.id), attempt: Number(r.attempts) }));
  }

  /** The work is done; `set` adds columns of the queue's own (a sent time, a cleared body). */
  async succeed(db: Queryable, claim: Claim, set: SQL = sql``): Promise<Settled> {
    const rows = await queryRows(
      db,
      sql`update ${this.table} set status = ${this.done}, ${this.due} = null, ${this.error} = null, updated_at = now() ${set}
          where id = ${claim.id} and attempts = ${claim.attempt} and status = 'pending' returning id`,
    );
    return rows.length > 0 ? 'done' : 'stale';
  }

  /**
   * The attempt failed: retried after the schedule's next wait when `temporary` and waits are left,
   * failed with the reason otherwise. `set` as in succeed, applied when the row is failed for good.
   */
  async fail(db: Queryable, claim: Claim, reason: string, temporary: boolean, set: SQL = sql``): Promise<Settled> {
    const wait = temporary ? this.options.retrySchedule[claim.attempt - 1] : undefined;
    const rows =
      wait === undefined
        ? await queryRows(
            db,
            sql`update ${this.table} set status = 'failed', ${this.due} = null, ${this.error} = ${reason}, updated_at = now() ${set}
                where id = ${claim.id} and attempts = ${claim.attempt} and status = 'pending' returning id`,
          )
        : await queryRows(
            db,
            sql`update ${this.table} set ${this.due} = now() + make_interval(secs => ${wait / 1000}), ${this.error} = ${reason}, updated_at = now()
                where id = ${claim.id} and attempts = ${claim.attempt} and status = 'pending' returning id`,
          );
    if (rows.length === 0) return 'stale';
    return wait === undefined ? 'failed' : 'retrying';
  }
}
