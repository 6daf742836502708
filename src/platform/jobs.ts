import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { logFailure } from './errors.js';

/**
 * Periodic work of the service. An `exclusive` job runs once per interval across every instance on
 * the database: each run first claims its period with one conditional UPDATE, which only one
 * instance can win. Other jobs (queue workers) run everywhere and share work with row locks.
 */
export interface Job {
  name: string;
  intervalMs: number;
  exclusive: boolean;
  run(app: FastifyInstance): Promise<void>;
}

interface JobState {
  jobs: Map<string, Job>;
  timers: NodeJS.Timeout[];
  running: Set<Promise<unknown>>;
  stopped: boolean;
}

// Keyed by the app's event bus, which every plugin context shares (plugins get child instances).
const states = new WeakMap<object, JobState>();

function stateOf(app: FastifyInstance): JobState {
  let state = states.get(app.events);
  if (!state) states.set(app.events, (state = { jobs: new Map(), timers: [], running: new Set(), stopped: false }));
  return state;
}

export function registerJob(app: FastifyInstance, job: Job): void {
  stateOf(app).jobs.set(job.name, job);
}

/** Claims this period of an exclusive job; false when another run (here or elsewhere) has it. */
async function claim(app: FastifyInstance, job: Job): Promise<boolean> {
  const db = app.database.db;
  await db.execute(sql`insert into scheduled_jobs (name) values (${job.name}) on conflict do nothing`);
  const won = await queryRows(
    db,
    sql`update scheduled_jobs set last_run_at = now()
        where name = ${job.name} and (last_run_at is null or last_run_at <= now() - make_interval(secs => ${job.intervalMs / 1000}))
        returning name`,
  );
  return won.length > 0;
}

/**
 * Runs a job now (tests, and the timers below). An exclusive job runs only if its period is free,
 * unless `force`; answers whether it ran.
 */
export async function runJob(app: FastifyInstance, name: string, options: { force?: boolean } = {}): Promise<boolean> {
  const state = stateOf(app);
  const job = state.jobs.get(name);
  if (!job) throw new Error(`no job named ${name}`);
  if (job.exclusive && !options.force && !(await claim(app, job))) return false;
  const started = performance.now();
  const run = job.run(app);
  state.running.add(run);
  let outcome = 'failed';
  try {
    await run;
    outcome = 'ok';
  } finally {
    state.running.delete(run);
    app.metrics.jobRuns.inc({ job: name, outcome });
    app.metrics.jobDuration.observe({ job: name }, (performance.now() - started) / 1000);
  }
  return true;
}

export function startJobs(app: FastifyInstance): void {
  const state = stateOf(app);
  for (const job of state.jobs.values()) {
    let busy = false;
    const tick = () => {
      if (busy || state.stopped) return;
      busy = true;
      runJob(app, job.name)
        .catch((err: unknown) => logFailure(app.log, err, { job: job.name }, 'job failed'))
        .finally(() => (busy = false));
    };
    const timer = setInterval(tick, job.intervalMs);
    timer.unref();
    state.timers.push(timer);
  }
}

export async function stopJobs(app: FastifyInstance): Promise<void> {
  const state = stateOf(app);
  state.stopped = true;
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
  await Promise.allSettled([...state.running]);
}

/**
 * For a queue worker: answers the function a transactional listener calls with the organizations
 * it queued work for; once their commit lands, `drain` runs at once (told those organizations)
 * instead of waiting for the poll. Only this process's commits wake it: other instances' work is
 * theirs (or the poll's).
 */
export function wakeAfterCommit(app: FastifyInstance, name: string, drain: (organizationIds: number[]) => Promise<unknown>): (organizationIds: number[]) => void {
  const queued = new Set<number>();
  // Without jobs (tests, a web-only instance) nothing is drained in the background.
  if (app.config.jobsEnabled) {
    app.events.onCommitted((orgs) => {
      const due = [...orgs].filter((org) => queued.delete(org));
      if (due.length > 0) void drain(due).catch((err: unknown) => logFailure(app.log, err, { job: name }, 'queue drain failed'));
    });
  }
  return (orgs) => orgs.forEach((org) => queued.add(org));
}

/**
 * A queue worker's drain: rounds of work until one finds nothing to take. One drain runs at a time
 * per process; a call during a drain joins it and makes it look once more before it ends, so work
 * committed meanwhile does not wait for the next poll.
 */
export class Drain {
  private running: Promise<void> | null = null;
  private again = false;
  private halted = false;

  /**
   * `round` does one batch and answers how many items it took (0: none left, or all held by other
   * instances). `onError`, when given, hears a failed drain instead of its caller.
   */
  constructor(
    private readonly round: () => Promise<number>,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** Set once stop() was called: rounds check it between items. */
  get stopping(): boolean {
    return this.halted;
  }

  run(): Promise<void> {
    if (this.halted) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const pass = this.pass();
    this.running = (this.onError ? pass.catch(this.onError) : pass).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** No round starts after this; answers once the current one has ended. */
  stop(): Promise<void> {
    this.halted = true;
    return (this.running ?? Promise.resolve()).catch(() => {});
  }

  private async pass(): Promise<void> {
    do {
      this.again = false;
      while (!this.halted && (await this.round()) > 0);
    } while (this.again && !this.halted);
  }
}

/**
 * For a route that queues work for a queue worker: a function to call once the queuing commits, which
 * runs the worker at once. Without jobs in this process (a web-only instance, tests) it does nothing:
 * the queued job waits for an instance that runs them.
 */
export function wakeJob(app: FastifyInstance, name: string): () => void {
  return () => {
    if (app.config.jobsEnabled) void runJob(app, name).catch((err: unknown) => logFailure(app.log, err, { job: name }, 'job failed'));
  };
}
