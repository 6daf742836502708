import { sql, SQL, type Name } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';

/**
 * The service's durable queues, two kinds: items (DurableQueue: an email, a webhook delivery, a bot
 * message, a stored object to remove) tried again and again until done, and jobs (JobQueue: an
 * import, an export, an indexing run) taken once and watched by a heartbeat. Each queue keeps its
 * own table and its own way to do the work; this module only decides who does it and when.
 * (Automation runs are done inside the transaction that claims them, exactly once: automation.engine.ts.)
 *
 * A DurableQueue's table holds its items as rows with a status (pending until settled), an attempt
 * count, a due time and an error column; QueueShape names them where a table spells them otherwise.
 * - A claim takes due rows with FOR UPDATE SKIP LOCKED in one statement that also moves the due time
 *   forward by the lease: instances share a queue without waiting for each other, and none takes a
 *   row another one holds.
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
  /** The primary key column: 'id', a bigint read as a number, unless named. */
  key?: string;
  /** How the key is read: 'text' for a key that is not a number (a uuid). */
  keyType?: 'number' | 'text';
  /** The timestamp column that says when the row is next due; a claim moves it by the lease. */
  due?: string;
  /** False for a NOT NULL due column: a settled row keeps its last due time instead of none. */
  clearDue?: boolean;
  /** The text column for the last failure's reason. */
  error?: string;
  /**
   * The status column, or null for a table whose rows are all pending: a done row is deleted, and
   * its schedule must never run out (there is no status to fail it with).
   */
  status?: string | null;
  pending?: string;
  /** The status a row gets once its work is done. */
  done?: string;
  failed?: string;
  /** The column a change touches, or null for a table without one. */
  updatedAt?: string | null;
  /**
   * When an attempt counts: at its claim (a worker that died mid-item used one up), or once its
   * outcome is recorded (an attempt cut short, by a shutdown say, is not counted: it never happened).
   */
  countAt?: 'claim' | 'settle';
  /**
   * Which due rows a claim takes first: the longest due, or the lowest keys (a queue whose claim
   * condition follows key order, like the messenger's oldest-of-its-chat, is walked in that index
   * and stops at the limit; sorting its whole backlog by due time took 80 ms for 20,000 rows, not 0.5).
   */
  order?: 'due' | 'key';
}

export interface QueueOptions {
  /** How long a claim keeps others away: the longest an item's work may take, and a margin to record it. */
  leaseMs: number;
  /** The wait after failed attempt n (1 for the first): the list's n-th entry, or the function's answer; none left means failed. */
  retrySchedule: readonly number[] | ((attempt: number) => number | undefined);
}

export interface Claim<K extends number | string = number> {
  id: K;
  /** The attempt this claim is (1 for the first): settle with it. */
  attempt: number;
}

export type Settled = 'done' | 'retrying' | 'failed' | 'stale';

/**
 * Columns of the queue's own that a settle also writes (`, sent_at = now()`: a leading comma each).
 * Plain SQL is written when the row is settled for good (done or failed); `each` with every outcome
 * (an attempt's log entry), `final` only for good (bodies cleared).
 */
export type Extra = SQL | { each?: SQL; final?: SQL };

export class DurableQueue<K extends number | string = number> {
  private readonly table: Name;
  private readonly key: Name;
  private readonly due: Name;
  private readonly error: Name;
  private readonly status: Name | null;
  private readonly names: { pending: string; done: string; failed: string };
  private readonly touched: SQL;
  private readonly settledDue: SQL;
  private readonly order: SQL;

  constructor(
    private readonly shape: QueueShape,
    private readonly options: QueueOptions,
  ) {
    this.table = sql.identifier(shape.table);
    this.key = sql.identifier(shape.key ?? 'id');
    this.due = sql.identifier(shape.due ?? 'next_attempt_at');
    this.error = sql.identifier(shape.error ?? 'last_error');
    this.status = shape.status === null ? null : sql.identifier(shape.status ?? 'status');
    this.names = { pending: shape.pending ?? 'pending', done: shape.done ?? 'sent', failed: shape.failed ?? 'failed' };
    this.touched = shape.updatedAt === null ? sql`` : sql`, ${sql.identifier(shape.updatedAt ?? 'updated_at')} = now()`;
    this.settledDue = shape.clearDue === false ? sql`` : sql`, ${this.due} = null`;
    this.order = shape.order === 'key' ? sql`${this.key}` : sql`${this.due}, ${this.key}`;
  }

  private get countsAtClaim(): boolean {
    return (this.shape.countAt ?? 'claim') === 'claim';
  }

  private get isPending(): SQL {
    return this.status ? sql`${this.status} = ${this.names.pending}` : sql`true`;
  }

  /**
   * Takes up to `limit` due rows (in the shape's order), `where` narrowing them (a condition on the
   * queue's own columns, the table named as itself). `anyTime` takes them due or not: for rows a
   * caller queued and works on itself right away (a ping's delivery, a request's own deletions).
   */
  async claim(db: Queryable, limit: number, where: SQL = sql`true`, options: { anyTime?: boolean } = {}): Promise<Array<Claim<K>>> {
    const due = options.anyTime ? sql`true` : sql`${this.due} <= now()`;
    const counted = this.countsAtClaim ? sql`, attempts = q.attempts + 1` : sql``;
    const rows = await queryRows<{ key: string; attempts: number }>(
      db,
      sql`with due as (
            select ${this.key} from ${this.table}
            where ${this.isPending} and ${due} and ${where}
            order by ${this.order}
            limit ${limit}
            for update skip locked)
          update ${this.table} q set ${this.due} = now() + make_interval(secs => ${this.options.leaseMs / 1000}) ${counted} ${this.touched}
          from due where q.${this.key} = due.${this.key}
          returning q.${this.key}::text as key, q.attempts`,
    );
    const read = (key: string) => (this.shape.keyType === 'text' ? key : Number(key)) as K;
    return rows.map((r) => ({ id: read(r.key), attempt: Number(r.attempts) + (this.countsAtClaim ? 0 : 1) }));
  }

  /** The work is done; `extra` adds columns of the queue's own (a sent time, a cleared body). */
  async succeed(db: Queryable, claim: Claim<K>, extra: Extra = sql``): Promise<Settled> {
    if (!this.status) {
      const gone = await queryRows(db, sql`delete from ${this.table} where ${this.claimed(claim)} returning 1`);
      return gone.length > 0 ? 'done' : 'stale';
    }
    const set = sql`${this.status} = ${this.names.done} ${this.settledDue}, ${this.error} = null ${this.extra(extra, true)}`;
    return (await this.settle(db, claim, set)) ? 'done' : 'stale';
  }

  /**
   * The attempt failed: retried after the schedule's next wait when `temporary` and waits are left,
   * failed with the reason otherwise.
   */
  async fail(db: Queryable, claim: Claim<K>, reason: string | null, temporary: boolean, extra: Extra = sql``): Promise<Settled> {
    const schedule = this.options.retrySchedule;
    const wait = !temporary ? undefined : typeof schedule === 'function' ? schedule(claim.attempt) : schedule[claim.attempt - 1];
    if (wait === undefined && !this.status) throw new Error(`${this.shape.table}: a queue without a status column must retry for ever`);
    const set =
      wait === undefined
        ? sql`${this.status} = ${this.names.failed} ${this.settledDue}, ${this.error} = ${reason} ${this.extra(extra, true)}`
        : sql`${this.due} = now() + make_interval(secs => ${wait / 1000}), ${this.error} = ${reason} ${this.extra(extra, false)}`;
    if (!(await this.settle(db, claim, set))) return 'stale';
    return wait === undefined ? 'failed' : 'retrying';
  }

  /**
   * Gives the claim back without counting its attempt (a receiver that said "not now", with a time):
   * the row is due again after `waitMs`.
   */
  async release(db: Queryable, claim: Claim<K>, waitMs: number, reason: string | null = null): Promise<Settled> {
    const set = sql`${this.due} = now() + make_interval(secs => ${waitMs / 1000}), ${this.error} = ${reason}`;
    return (await this.settle(db, claim, set, false)) ? 'retrying' : 'stale';
  }

  /** The claimed row, if it is still this claim's: same attempt count, still pending. */
  private claimed(claim: Claim<K>): SQL {
    const before = this.countsAtClaim ? claim.attempt : claim.attempt - 1;
    return sql`${this.key} = ${claim.id} and attempts = ${before} and ${this.isPending}`;
  }

  /** `counts`: this outcome uses up the attempt (release gives it back). */
  private async settle(db: Queryable, claim: Claim<K>, set: SQL, counts = true): Promise<boolean> {
    let attempts = sql``;
    if (counts && !this.countsAtClaim) attempts = sql`, attempts = ${claim.attempt}`;
    if (!counts && this.countsAtClaim) attempts = sql`, attempts = ${claim.attempt - 1}`;
    const rows = await queryRows(db, sql`update ${this.table} set ${set} ${attempts} ${this.touched} where ${this.claimed(claim)} returning 1`);
    return rows.length > 0;
  }

  private extra(extra: Extra, final: boolean): SQL {
    if (extra instanceof SQL) return final ? extra : sql``;
    return sql`${extra.each ?? sql``} ${final ? (extra.final ?? sql``) : sql``}`;
  }
}

/**
 * A job table's queue: rows go 'queued' → 'running' (with a heartbeat) → a final status of the job's
 * own, one job per claim, oldest first, with SKIP LOCKED so each job is taken once. There are no
 * retries: a running job proves it is alive by its heartbeat_at (written with its progress, or by
 * beat), and one silent for `lostAfterMs` died with its process. Such a job is taken again when
 * `retakeLost` (work that can start over, like indexing) or left for the caller to fail and undo
 * (the `lost` condition).
 */
export class JobQueue {
  private readonly table: Name;

  constructor(
    table: string,
    private readonly options: { lostAfterMs: number; retakeLost?: boolean },
  ) {
    this.table = sql.identifier(table);
  }

  /** A running job whose worker has gone silent (a condition on the table's columns). */
  get lost(): SQL {
    return sql`(status = 'running' and heartbeat_at < now() - make_interval(secs => ${this.options.lostAfterMs / 1000}))`;
  }

  /** Takes the oldest queued job (or lost one, when retaken); answers its id or null. */
  async claim(db: Queryable): Promise<number | null> {
    const which = this.options.retakeLost ? sql`status = 'queued' or ${this.lost}` : sql`status = 'queued'`;
    const [row] = await queryRows<{ id: number }>(
      db,
      sql`update ${this.table} set status = 'running', heartbeat_at = now(), updated_at = now()
          where id = (select id from ${this.table} where ${which} order by id limit 1 for update skip locked)
          returning id`,
    );
    return row ? Number(row.id) : null;
  }

  /** Tells that the job's worker is alive: between progress writes that do, before a long wait. */
  async beat(db: Queryable, id: number): Promise<void> {
    await db.execute(sql`update ${this.table} set heartbeat_at = now() where id = ${id}`);
  }
}
