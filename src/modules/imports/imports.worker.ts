import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { importJobs } from '../../db/schema/imports.js';
import type { Actor, OrgRole } from '../../platform/auth.js';
import { systemWrite, writeAs, type Ctx, type SystemCtx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { registerJob } from '../../platform/jobs.js';
import { JobQueue } from '../../platform/queue.js';
import { presentImportJob, type ImportJobRow } from './imports.presenter.js';
import { emptyReport, type ImportReport } from './report.js';
import type { NewTask } from './task-writer.js';
import { writeTasks } from './task-writer.js';
import { setUpTrelloProject, trelloTasks } from './trello.apply.js';
import type { TrelloPlan } from './trello.map.js';
import type { CsvPlan } from './csv.service.js';
import { authorizeCsvImport } from './imports.policy.js';
import { lockColumns, requireRoom, compactColumns } from '../tasks/board/columns.js';
import { emitTaskDeleted } from '../tasks/tasks.events.js';

export const IMPORT_JOB = 'imports';
/** Tasks per transaction (and per progress event). */
const BATCH = 50;
/** A running job whose worker has been silent 10 minutes died with its process: it is failed and undone (reapLost). */
const queue = new JobQueue('import_jobs', { lostAfterMs: 600_000 });

/**
 * Imports run on the jobs platform like indexing: every instance polls, a commit that queues one
 * wakes this instance at once, and the oldest queued job is claimed with SKIP LOCKED. A job writes
 * in batches (so its progress can be read while it runs) and undoes what it wrote if it fails.
 */
export function registerImports(app: FastifyInstance): void {
  registerJob(app, { name: IMPORT_JOB, intervalMs: 2000, exclusive: false, run: drainImports });
}

export async function drainImports(app: FastifyInstance): Promise<void> {
  await reapLost(app);
  for (let job = await claim(app); job; job = await claim(app)) await runImport(app, job);
}

async function claim(app: FastifyInstance): Promise<ImportJobRow | null> {
  const id = await queue.claim(app.database.db);
  if (id === null) return null;
  const [job] = await app.database.db.select().from(importJobs).where(eq(importJobs.id, id));
  return job ?? null;
}

/** Writing a job's row and announcing it to the user who started it. */
function announce(ctx: Pick<Ctx, 'db'>, job: ImportJobRow, type: 'import.progress' | 'import.finished'): void {
  emit(ctx.db, { type, spaceId: job.spaceId, projectId: job.projectId, userId: job.creatorId, organizationId: job.organizationId, payload: presentImportJob(job) });
}

export async function updateJob(ctx: Pick<Ctx, 'db'>, jobId: number, change: Partial<ImportJobRow>, type: 'import.progress' | 'import.finished' = 'import.progress'): Promise<ImportJobRow> {
  const [row] = await ctx.db
    .update(importJobs)
    .set({ ...change, heartbeatAt: new Date(), updatedAt: new Date() })
    .where(eq(importJobs.id, jobId))
    .returning();
  if (!row) throw new AppError('NOT_FOUND', 'import job gone');
  announce(ctx, row, type);
  return row;
}

/** The importing user as they are now: one who left the organization cannot import into it. */
async function actorOf(app: FastifyInstance, job: ImportJobRow): Promise<Actor> {
  const [member] = await queryRows<{ role: OrgRole }>(
    app.database.db,
    sql`select role from organization_members where organization_id = ${job.organizationId} and user_id = ${job.creatorId}
        and active and deleted_at is null`,
  );
  if (!member || job.creatorId === null) throw new AppError('FORBIDDEN', 'the importing user is no longer an active member of the organization');
  return { userId: Number(job.creatorId), organizationId: job.organizationId, orgRole: member.role, sessionId: null, tokenId: null };
}

export async function runImport(app: FastifyInstance, claimed: ImportJobRow): Promise<void> {
  let job = claimed;
  const created: number[] = [];
  try {
    const actor = await actorOf(app, job);
    const report = emptyReport();
    let tasks: NewTask[];
    let project: { id: number; spaceId: number; name: string };
    if (job.kind === 'trello') {
      const plan = job.payload as TrelloPlan;
      const setup = await writeAs(app, actor, app.log, async (ctx) => {
        // A fresh copy per attempt: a retried transaction must not count twice.
        const counted = structuredClone(plan.report);
        const done = await setUpTrelloProject(ctx, job.spaceId!, plan, counted);
        job = await updateJob(ctx, job.id, { projectId: done.project.id });
        return { ...done, counted };
      });
      Object.assign(report, setup.counted);
      project = setup.project;
      tasks = trelloTasks(plan, setup, actor.userId, report);
    } else if (job.kind === 'csv') {
      const plan = job.payload as CsvPlan;
      project = { id: job.projectId!, spaceId: job.spaceId!, name: plan.projectName };
      tasks = plan.tasks;
    } else {
      throw new AppError('BAD_REQUEST', `this instance cannot run imports of kind "${job.kind}"`);
    }
    const state = job.kind === 'trello' ? `imported from Trello board "${project.name}"` : 'imported from CSV';
    for (let i = 0; i < tasks.length; i += BATCH) {
      const batch = tasks.slice(i, i + BATCH);
      job = await writeAs(app, actor, app.log, async (ctx) => {
        if (job.kind === 'csv') {
          // Checked again at every batch: the role or a column's limit may have changed since the upload.
          await authorizeCsvImport(ctx.db, actor, project.id);
          const columns = await lockColumns(ctx.db, actor.organizationId, batch.map((t) => t.stageId));
          for (const [id, column] of columns) await requireRoom(ctx.db, column, batch.filter((t) => t.stageId === id && !t.archived).length);
        }
        const ids = await writeTasks(ctx, project, batch, state);
        created.push(...ids);
        // Kept with the job in the same transaction, so that a job lost with its process can still be undone.
        if (job.kind === 'csv') {
          await ctx.db.execute(
            sql`update import_jobs set payload = jsonb_set(payload, '{created}', coalesce(payload->'created', '[]'::jsonb) || ${JSON.stringify(ids)}::jsonb) where id = ${job.id}`,
          );
        }
        return updateJob(ctx, job.id, { processed: job.processed + batch.length });
      });
    }
    tally(report, tasks);
    await writeAs(app, actor, app.log, (ctx) => updateJob(ctx, job.id, { status: 'succeeded', report, payload: null, finishedAt: new Date() }, 'import.finished'));
  } catch (err) {
    if (!(err instanceof AppError)) app.log.error({ err, importId: job.id }, 'import failed');
    await systemWrite(app, job.organizationId, async (ctx) => {
      await undo(ctx, job, created);
      await updateJob(ctx, job.id, {
        status: 'failed',
        payload: null,
        finishedAt: new Date(),
        processed: 0,
        error: `${err instanceof AppError ? err.message : 'the import stopped on an internal error (see the service log)'}; nothing of it was kept`,
        ...(job.kind === 'trello' ? { projectId: null } : {}),
      }, 'import.finished');
    }).catch((e: unknown) => app.log.error({ err: e, importId: job.id }, 'could not record a failed import'));
  }
}

/** Counts of what the tasks carried (the Trello setup counted columns and labels itself). */
function tally(report: ImportReport, tasks: NewTask[]): void {
  const n = (f: (t: NewTask) => number) => tasks.reduce((sum, t) => sum + f(t), 0);
  report.counts.tasks = tasks.length;
  report.counts.archivedTasks = n((t) => (t.archived ? 1 : 0));
  report.counts.doneTasks = n((t) => (t.status === 1 ? 1 : 0));
  report.counts.subtasks = n((t) => t.subtasks.length);
  report.counts.comments = n((t) => t.messages.length);
  report.counts.assignees = n((t) => t.assigneeIds.length);
  report.counts.taskLabels = n((t) => t.labelIds.length);
}

/** A failed import leaves nothing: the Trello project goes with everything in it; CSV tasks go. */
async function undo(ctx: SystemCtx, job: ImportJobRow, created: number[]): Promise<void> {
  if (job.kind === 'trello' && job.projectId !== null) {
    await ctx.db.execute(sql`delete from projects where id = ${job.projectId} and organization_id = ${job.organizationId}`);
    emit(ctx.db, { type: 'project.deleted', spaceId: job.spaceId, projectId: job.projectId, payload: { id: job.projectId } });
  } else if (created.length > 0) {
    const stages = await queryRows<{ stageId: number }>(
      ctx.db,
      sql`delete from task_stages where task_id = any(${`{${created.join(',')}}`}::bigint[]) returning stage_id as "stageId"`,
    );
    await ctx.db.execute(sql`delete from tasks where id = any(${`{${created.join(',')}}`}::bigint[]) and organization_id = ${job.organizationId}`);
    await compactColumns(ctx.db, stages.map((s) => Number(s.stageId)));
    // Their task.created went out with the batches that committed: clients learn they are gone.
    for (const id of created) emitTaskDeleted(ctx.db, { id, spaceId: job.spaceId, projectId: job.projectId });
  }
}

/** Jobs whose process died: failed, and what they wrote removed. */
async function reapLost(app: FastifyInstance): Promise<void> {
  const lost = await app.database.db.select().from(importJobs).where(queue.lost);
  for (const job of lost) {
    await systemWrite(app, job.organizationId, async (ctx) => {
      await undo(ctx, job, (job.payload as { created?: number[] } | null)?.created ?? []);
      await updateJob(ctx, job.id, { status: 'failed', payload: null, finishedAt: new Date(), error: 'the import stopped with its process; start it again' }, 'import.finished');
    });
  }
}
