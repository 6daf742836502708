import { logFailure } from '../../platform/errors.js';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { isRetryable, pgCode } from '../../db/tx.js';
import { Drain, registerJob, wakeAfterCommit } from '../../platform/jobs.js';

/**
 * Keeping the rollups off the write path (migration 0016). A write's triggers append the ids of the
 * tasks it touched to `analytics_dirty`; `analytics_drain` takes a batch of them, syncs those tasks
 * and deletes the rows in one transaction, the organization's drains taking turns under an advisory
 * lock. The queue is applied after the commits that fill it (this process's, a moment later), at
 * start-up (what a crash left), every few seconds (other instances' and hand-made writes), and by
 * every report for its organization before it reads, which keeps reports exact.
 */

export const ANALYTICS_DRAIN_JOB = 'analytics.drain';

// Queue rows per round: a task's create queues about four, so a round syncs some 250 tasks and holds
// the organization's lock for one statement of that size. PGlite runs that statement on the service's
// thread (200–400 ms for a full round, every request waiting), so there the background drainer takes
// smaller rounds with requests served between them.
const BATCH = 1000;
const PGLITE_BACKGROUND_BATCH = 200;
// Commits arriving within this wait share one round (and its upserts of the same rollup rows). A
// round syncs its tasks for a fixed cost of a few milliseconds plus about 0.25 ms each: at 20 ms a
// busy organization paid that fixed cost every few writes (0.7 ms of database CPU per created task,
// measured). Reports drain before they read, so the wait is never seen in an answer.
const DEBOUNCE_MS = 1000;
const POLL_MS = 10_000;
// PGlite has no autovacuum: the queue's dead rows are vacuumed after this many were drained.
const VACUUM_AFTER = 50_000;
const MAX_ATTEMPTS = 4;

/**
 * One round: up to BATCH queued rows of the organization (of any, with null) applied; answers how
 * many (0: none left). A round that lost a deadlock, or met a project deleted since its snapshot
 * (its rollup insert then fails the foreign key), rolled back whole and is run again.
 */
async function drainRound(db: Queryable, organizationId: number | null, batch = BATCH): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [row] = await queryRows<{ n: number }>(db, sql`select analytics_drain(${organizationId}::bigint, ${batch}::int) as n`, { prepare: 'analytics-drain' });
      return Number(row?.n ?? 0);
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && (isRetryable(error) || pgCode(error) === '23503')) continue;
      throw error;
    }
  }
}

/** Applies everything queued for the organization: a report reads after this, so it counts every committed write. */
export async function drainOrganization(db: Queryable, organizationId: number): Promise<void> {
  while ((await drainRound(db, organizationId)) > 0);
}

/**
 * This process's background drainer: one pass at a time (a request during a pass makes it look
 * again). A pass drains the organizations this process's commits woke, then, when a sweep was asked
 * for (start-up, the poll), every organization with rows queued, oldest first.
 */
class QueueDrainer {
  private readonly drain: Drain;
  private readonly woken = new Set<number>();
  private sweeping = false;
  private timer: NodeJS.Timeout | null = null;
  private drainedSinceVacuum = 0;

  constructor(private readonly app: FastifyInstance) {
    this.drain = new Drain(
      () => this.round(),
      (err) => logFailure(app.log, err, {}, 'analytics queue drain failed'),
    );
  }

  /** A drain of these organizations shortly, shared by every commit until it starts. */
  wake(organizationIds: number[]): void {
    for (const org of organizationIds) this.woken.add(org);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.drain.run();
    }, DEBOUNCE_MS);
  }

  /** Drains every organization's queue; answers when the queue was found empty. */
  sweep(): Promise<void> {
    this.sweeping = true;
    return this.drain.run();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.drain.stop();
  }

  /**
   * Takes what the woken organizations have queued, and answers how much is left to take at once: a
   * full batch (a backlog) goes on with another round. Rows queued while a round runs wait for their
   * own commit's wake (DEBOUNCE_MS), so that a busy organization pays a round's fixed cost about once
   * a second rather than after every round: under steady writes the next round used to start as soon
   * as the last ended, each with a few dozen tasks (W4: 146 rounds in 10 s).
   */
  private async round(): Promise<number> {
    const db = this.app.database.db;
    const batch = this.app.database.kind === 'pglite' ? PGLITE_BACKGROUND_BATCH : BATCH;
    const orgs = [...this.woken];
    this.woken.clear();
    let taken = 0;
    let backlog = 0;
    try {
      while (orgs.length > 0) {
        const n = await drainRound(db, orgs[0]!, batch);
        taken += n;
        if (n >= batch) {
          this.woken.add(orgs[0]!);
          backlog += n;
        }
        orgs.shift();
      }
    } finally {
      // A failed round leaves the rest woken for the next one.
      for (const org of orgs) this.woken.add(org);
    }
    if (backlog === 0 && this.sweeping) {
      const n = await drainRound(db, null, batch);
      this.sweeping = n > 0;
      taken += n;
      backlog += n;
    }
    this.drainedSinceVacuum += taken;
    if (backlog === 0 && this.drainedSinceVacuum >= VACUUM_AFTER && this.app.database.kind === 'pglite') {
      this.drainedSinceVacuum = 0;
      await db.execute(sql`vacuum analytics_dirty`);
    }
    return backlog;
  }
}

const drainers = new WeakMap<object, QueueDrainer>();

/**
 * Wires the drainer into the app: woken by this process's commits (any organization that recorded
 * events may have queued tasks; an empty queue costs one indexed look-up), a sweep at start-up
 * (what a crash left between a commit and its drain) and every POLL_MS (other instances' and
 * hand-made writes). Without jobs (tests, a web-only instance) nothing drains in the background:
 * reports still do.
 */
export function registerAnalyticsQueue(app: FastifyInstance): void {
  const drainer = new QueueDrainer(app);
  drainers.set(app.events, drainer);
  registerJob(app, { name: ANALYTICS_DRAIN_JOB, intervalMs: POLL_MS, exclusive: false, run: () => drainer.sweep() });
  app.addHook('preClose', async () => drainer.stop());
  if (!app.config.jobsEnabled) return;
  const queued = wakeAfterCommit(app, ANALYTICS_DRAIN_JOB, async (orgs) => drainer.wake(orgs));
  app.events.addListener(async (_db, events) => queued(events.map((e) => e.organizationId)));
  // Not awaited: a long backlog must not hold up listening.
  app.addHook('onReady', async () => void drainer.sweep());
}

/** A sweep by the app's drainer (tests: joins the start-up sweep and answers once it has ended). */
export function sweepQueue(app: FastifyInstance): Promise<void> {
  const drainer = drainers.get(app.events);
  if (!drainer) throw new Error('the analytics queue is not registered');
  return drainer.sweep();
}

/**
 * For a bulk load in one transaction (an organization import, a restore): the triggers queue nothing
 * until `syncLoaded`, which syncs the loaded tasks once, in the same transaction, so the reports
 * are ready when it commits; otherwise every row loaded would be queued and the first report after
 * it would wait for the drain. Only for tasks no one else can see yet: these syncs take no lock.
 */
export async function pauseQueue(db: Queryable): Promise<void> {
  await db.execute(sql`select set_config('workboard.analytics_sync', 'off', true)`);
}

/** Ends `pauseQueue` and syncs the tasks of the organization (of every one, with null). */
export async function syncLoaded(db: Queryable, organizationId: number | null): Promise<void> {
  await db.execute(sql`select set_config('workboard.analytics_sync', 'on', true)`);
  const tasks = organizationId === null ? sql`select id from tasks` : sql`select id from tasks where organization_id = ${organizationId}`;
  await db.execute(sql`select analytics_sync(array(${tasks}))`);
}
