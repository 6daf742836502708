import type { FastifyInstance } from 'fastify';
import { and, eq, lt, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { portabilityJobs } from '../../db/schema/portability.js';
import type { Actor, OrgRole } from '../../platform/auth.js';
import { longWriteAs, systemWrite } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { registerJob } from '../../platform/jobs.js';
import { JobQueue } from '../../platform/queue.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { pauseQueue, syncLoaded } from '../analytics/analytics.queue.js';
import { issueAccountClaims } from '../auth/password-reset/password-reset.service.js';
import { wakeEmail } from '../email/email.outbox.js';
import { walkArchive } from './archive.js';
import { exportPlan } from './catalogue.js';
import { writeArchive, type Progress } from './export.js';
import { OrganizationLoader } from './load.js';
import { organizationScope } from './rows.js';
import { archiveLimits, ORGANIZATION_FORMAT } from './limits.js';
import { authorizePortability } from './portability.policy.js';
import { presentPortabilityJob, type PortabilityJobRow } from './portability.presenter.js';

export const PORTABILITY_JOB = 'portability';
const EXPIRE_JOB = 'portability.expire';
/** An export's archive is kept this long. */
export const EXPORT_TTL_MS = 7 * 24 * 3600_000;
/** A running job whose worker has been silent 15 minutes died with its process: expireArchives fails it. */
const queue = new JobQueue('portability_jobs', { lostAfterMs: 900_000 });
/** Progress is written (and announced) at most this often. */
const PROGRESS_EVERY_MS = 1000;

export function registerPortability(app: FastifyInstance): void {
  registerJob(app, { name: PORTABILITY_JOB, intervalMs: 2000, exclusive: false, run: drainPortability });
  registerJob(app, { name: EXPIRE_JOB, intervalMs: 3600_000, exclusive: true, run: expireArchives });
}

export async function drainPortability(app: FastifyInstance): Promise<void> {
  for (let job = await claim(app); job; job = await claim(app)) {
    if (job.kind === 'export') await runExport(app, job);
    else await runImport(app, job);
  }
}

async function claim(app: FastifyInstance): Promise<PortabilityJobRow | null> {
  const id = await queue.claim(app.database.db);
  if (id === null) return null;
  const [job] = await app.database.db.select().from(portabilityJobs).where(eq(portabilityJobs.id, id));
  return job ?? null;
}

type JobEvent = 'progress' | 'finished';

export function announce(db: Queryable, job: PortabilityJobRow, what: JobEvent): void {
  const type = job.kind === 'export' ? (`export.${what}` as const) : (`organization.import.${what}` as const);
  emit(db, { type, organizationId: job.organizationId, userId: job.creatorId, payload: presentPortabilityJob(job) });
}

/** A change of a job's row: values, or SQL of its own columns (processed = total). */
type JobChange = { [K in keyof PortabilityJobRow]?: PortabilityJobRow[K] | SQL };

async function update(db: Queryable, id: number, change: JobChange, what: JobEvent = 'progress'): Promise<PortabilityJobRow> {
  const [row] = await db
    .update(portabilityJobs)
    .set({ ...change, heartbeatAt: new Date(), updatedAt: new Date() })
    .where(eq(portabilityJobs.id, id))
    .returning();
  if (!row) throw new AppError('NOT_FOUND', 'the job is gone');
  announce(db, row, what);
  return row;
}

/**
 * Progress written in its own short transaction, at most once a second. While an import's one
 * transaction is open the embedded engine (one connection) can run nothing else, so there an
 * import reports only before and after; PostgreSQL reports all along.
 */
function progressOf(app: FastifyInstance, job: PortabilityJobRow, canWrite: boolean): Progress {
  let processed = 0;
  // An import's total is known at upload (the manifest's counts) and never told again: starting from
  // 0 here wrote "n / 0" while it ran and "0 / 0" once it had succeeded (processed = total).
  let total = job.total;
  let last = 0;
  // Never past the total: the archive's rows are counted again as they load, and a client must not see 160 / 151.
  const flush = () => systemWrite(app, job.organizationId, (ctx) => update(ctx.db, job.id, { processed: Math.min(processed, total), total }));
  return {
    total: async (n) => {
      total = n;
      if (canWrite) await flush();
    },
    advance: async (n) => {
      processed += n;
      if (canWrite && Date.now() - last >= PROGRESS_EVERY_MS) {
        last = Date.now();
        await flush();
      }
    },
  };
}

async function fail(app: FastifyInstance, job: PortabilityJobRow, err: unknown, tail: string): Promise<void> {
  if (!(err instanceof AppError)) app.log.error({ err, jobId: job.id }, `organization ${job.kind} failed`);
  const reason = err instanceof AppError ? err.message : `the ${job.kind} stopped on an internal error (see the service log)`;
  await systemWrite(app, job.organizationId, async (ctx) => {
    if (job.kind === 'import' && job.archiveKey) await app.files.removeAfterCommit(ctx, [job.archiveKey]);
    await update(ctx.db, job.id, { status: 'failed', finishedAt: new Date(), archiveKey: null, error: `${reason}; ${tail}` }, 'finished');
  }).catch((e: unknown) => app.log.error({ err: e, jobId: job.id }, 'could not record a failed job'));
}

export async function runExport(app: FastifyInstance, job: PortabilityJobRow): Promise<void> {
  const tables = exportPlan();
  const spec = {
    format: ORGANIZATION_FORMAT,
    tables,
    where: (t: (typeof tables)[number]) => organizationScope(t, job.organizationId),
    omit: (t: (typeof tables)[number]) => Object.keys(t.rule.omit ?? {}),
    source: { organizationId: job.organizationId },
    blobs: async function* (db: Queryable) {
      const rows = await queryRows<{ id: number; key: string; size: number }>(db, sql`select id, key::text as key, size from files where organization_id = ${job.organizationId} order by id`);
      for (const r of rows) yield { name: `files/${r.id}`, key: r.key, size: Number(r.size) };
    },
  };
  try {
    const progress = progressOf(app, job, true);
    // On PostgreSQL the export reads one snapshot; the embedded engine's one connection cannot be held that long.
    const result =
      app.database.kind === 'postgres'
        ? await app.database.jobDb.transaction((tx) => writeArchive(app, tx, spec, progress), { isolationLevel: 'repeatable read', accessMode: 'read only' })
        : await writeArchive(app, app.database.jobDb, spec, progress);
    await systemWrite(app, job.organizationId, (ctx) =>
      update(
        ctx.db,
        job.id,
        {
          status: 'succeeded',
          archiveKey: result.key,
          archiveSize: result.size,
          processed: sql`${portabilityJobs.total}`,
          report: result.report.toJSON(),
          finishedAt: new Date(),
          expiresAt: new Date(Date.now() + EXPORT_TTL_MS),
        },
        'finished',
      ),
    );
  } catch (err) {
    await fail(app, job, err, 'no archive was kept');
  }
}

/** The importing user as they are now: one who left the organization cannot import from it. */
async function actorOf(app: FastifyInstance, job: PortabilityJobRow): Promise<Actor & { email: string }> {
  const [member] = await queryRows<{ role: OrgRole; email: string }>(
    app.database.db,
    sql`select m.role, u.email from organization_members m join users u on u.id = m.user_id
        where m.organization_id = ${job.organizationId} and m.user_id = ${job.creatorId} and m.active and m.deleted_at is null`,
  );
  if (!member || job.creatorId === null) throw new AppError('FORBIDDEN', 'the importing user is no longer an active member of the organization');
  return { userId: Number(job.creatorId), organizationId: job.organizationId, orgRole: member.role, sessionId: null, tokenId: null, email: member.email };
}

/**
 * Loads the uploaded archive into a new organization of the importing user, in one transaction:
 * a failure anywhere (a checksum at the end included) leaves no row, and the files written so far
 * are removed with the rollback.
 */
export async function runImport(app: FastifyInstance, claimed: PortabilityJobRow): Promise<void> {
  const job = claimed;
  try {
    const actor = await actorOf(app, job);
    // Checked again now: the role may have been taken away since the upload.
    authorizePortability(actor);
    const progress = progressOf(app, job, app.database.kind === 'postgres');
    const tables = new Map(exportPlan().map((t) => [t.name, t]));
    const licensing = { trialDays: app.config.trialDays, trialUsers: app.config.trialUsers };
    await longWriteAs(app, actor, app.log, async (ctx) => {
      const organizationId = await createOrganization(ctx.db, actor.userId, null, licensing);
      await pauseQueue(ctx.db);
      const loader = new OrganizationLoader(ctx.db, tables, organizationId, { id: actor.userId, email: actor.email }, app.files, ctx.onRollback, (n) => progress.advance(n));
      await walkArchive(await app.files.open(job.archiveKey!), ORGANIZATION_FORMAT, archiveLimits(app.config), {
        table: (name, data) => loader.table(name, data),
        file: (name, size, body) => loader.file(name, size, body),
      });
      await loader.finish();
      await syncLoaded(ctx.db, organizationId);
      // People new here get a "claim your account" email, queued with the import's commit.
      if (await issueAccountClaims(app, ctx.db, loader.invited, organizationId)) ctx.afterCommit(() => wakeEmail(app));
      await app.files.removeAfterCommit(ctx, [job.archiveKey!]);
      await update(
        ctx.db,
        job.id,
        { status: 'succeeded', resultOrganizationId: organizationId, processed: sql`${portabilityJobs.total}`, archiveKey: null, report: loader.report.toJSON(), finishedAt: new Date() },
        'finished',
      );
    });
  } catch (err) {
    await fail(app, job, err, 'nothing of it was kept');
  }
}

/** Exports past their 7 days lose their archive; jobs lost with their process are failed. */
export async function expireArchives(app: FastifyInstance): Promise<void> {
  const expired = await app.database.db
    .select()
    .from(portabilityJobs)
    .where(and(eq(portabilityJobs.kind, 'export'), eq(portabilityJobs.status, 'succeeded'), lt(portabilityJobs.expiresAt, new Date())));
  for (const job of expired) {
    await systemWrite(app, job.organizationId, async (ctx) => {
      if (job.archiveKey) await app.files.removeAfterCommit(ctx, [job.archiveKey]);
      await update(ctx.db, job.id, { status: 'expired', archiveKey: null }, 'finished');
    });
  }
  const lost = await app.database.db.select().from(portabilityJobs).where(queue.lost);
  for (const job of lost) await fail(app, job, new AppError('INTERNAL', 'the job stopped with its process'), 'start it again');
}
