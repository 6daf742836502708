import type { FastifyInstance } from 'fastify';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { aiChunks, aiDocuments, aiIndexingJobs } from '../../../db/schema/ai.js';
import { systemWrite, type SystemCtx } from '../../../platform/context.js';
import { emit } from '../../../platform/events.js';
import { registerJob } from '../../../platform/jobs.js';
import { JobQueue } from '../../../platform/queue.js';
import { allowedHostsOf } from '../../../platform/outbound.js';
import { presentJob, type IndexingJobRow } from '../ai.presenter.js';
import { configuredModel, recordUsage, type AiDeps, type ConfiguredModel } from '../settings.service.js';
import type { Chunk } from './chunking.js';
import { listSources, loadSources, type SourceContent } from './sources.js';

export const INDEXING_JOB = 'ai.indexing';
/** Sources per transaction (and per progress event). */
const BATCH = 25;
/** Texts per embeddings call. */
const EMBED_BATCH = 64;
/** A running job whose worker has been silent 2 minutes was lost with its process: it is taken again (indexing can start over). */
const queue = new JobQueue('ai_indexing_jobs', { lostAfterMs: 120_000, retakeLost: true });

type SourceKey = { sourceType: SourceContent['sourceType']; sourceId: number };
const keyOf = (s: SourceKey) => `${s.sourceType}:${s.sourceId}`;

export function appDeps(app: FastifyInstance): AiDeps {
  return {
    secrets: app.secrets,
    http: { allowedHosts: allowedHostsOf(app.config), timeoutMs: app.config.aiTimeoutMs, maxRetryAfterMs: app.config.aiMaxRetryAfterMs },
    publicUrl: app.config.publicUrl,
    log: app.log,
  };
}

/**
 * The indexing queue runs on the jobs platform: every instance polls (a commit that queues a job
 * also wakes this instance at once), and claims the oldest queued job with SKIP LOCKED, so each job
 * runs once. Progress is written, and announced, after every batch.
 */
export function registerIndexing(app: FastifyInstance): void {
  registerJob(app, { name: INDEXING_JOB, intervalMs: 2000, exclusive: false, run: drainIndexing });
}

export async function drainIndexing(app: FastifyInstance): Promise<void> {
  for (let job = await claimJob(app); job; job = await claimJob(app)) await runIndexingJob(app, job);
}

async function claimJob(app: FastifyInstance): Promise<IndexingJobRow | null> {
  const id = await queue.claim(app.database.db);
  if (id === null) return null;
  const [job] = await app.database.db.select().from(aiIndexingJobs).where(eq(aiIndexingJobs.id, id));
  return job ?? null;
}

function announce(ctx: SystemCtx, job: IndexingJobRow, type: 'ai.indexing.progress' | 'ai.indexing.finished'): void {
  // Index state is the admins' business: editors and admins of the space (organization admins included).
  emit(ctx, { type, spaceId: job.spaceId, editorsOnly: true, payload: presentJob(job) });
}

async function progress(app: FastifyInstance, job: IndexingJobRow, change: Partial<IndexingJobRow>, type: 'ai.indexing.progress' | 'ai.indexing.finished' = 'ai.indexing.progress') {
  return systemWrite(app, job.organizationId, async (ctx) => {
    const [row] = await ctx.db
      .update(aiIndexingJobs)
      .set({ ...change, heartbeatAt: new Date(), updatedAt: new Date() })
      .where(eq(aiIndexingJobs.id, job.id))
      .returning();
    if (!row) throw new JobGone();
    announce(ctx, row, type);
    return row;
  });
}

/** The job's space was deleted meanwhile (and the job with it): nothing left to do or report. */
class JobGone extends Error {}

export async function runIndexingJob(app: FastifyInstance, claimed: IndexingJobRow): Promise<IndexingJobRow> {
  let job = claimed;
  try {
    const org = job.organizationId;
    const db = app.database.db;
    const sources = await listSources(db, org, [job.spaceId]);
    const indexed = await db
      .select({
        id: aiDocuments.id,
        sourceType: aiDocuments.sourceType,
        sourceId: aiDocuments.sourceId,
        hash: aiDocuments.contentHash,
        status: aiDocuments.status,
        embeddingModel: aiDocuments.embeddingModel,
      })
      .from(aiDocuments)
      .where(and(eq(aiDocuments.organizationId, org), eq(aiDocuments.spaceId, job.spaceId)));
    const byKey = new Map(indexed.map((d) => [keyOf(d), d]));
    const present = new Set(sources.map(keyOf));
    const gone = indexed.filter((d) => !present.has(keyOf(d)));
    const model = await configuredModel(db, org, appDeps(app));
    const embeddingModel = model?.embeddingModel ?? null;
    // Changed, new, failed, or embedded by another model than the one configured now (or none).
    const todo = sources.filter((s) => {
      const doc = byKey.get(keyOf(s));
      return job.full || !doc || doc.hash !== s.hash || doc.status === 'failed' || doc.embeddingModel !== embeddingModel;
    });
    job = await progress(app, job, { total: todo.length + gone.length, processed: 0, failed: 0 });

    if (gone.length) {
      // Deleted, archived or moved away: they leave the index (a moved source is added by its new space's job).
      await db.delete(aiDocuments).where(inArray(aiDocuments.id, gone.map((d) => d.id)));
      job = await progress(app, job, { processed: gone.length });
    }

    for (let i = 0; i < todo.length; i += BATCH) {
      const keys = todo.slice(i, i + BATCH);
      // A source deleted since the listing is simply not loaded; it counts as processed (the next job drops its entry).
      const batch = await loadSources(db, org, keys);
      // Touched before each embeddings call too: a slow provider must not make the job look lost.
      const touch = () => queue.beat(app.database.db, job.id);
      const failed = await indexBatch(app, org, batch, model?.embeddingModel ? model : null, touch);
      job = await progress(app, job, { processed: job.processed + keys.length, failed: job.failed + failed });
    }
    return await progress(app, job, { status: 'succeeded', finishedAt: new Date() }, 'ai.indexing.finished');
  } catch (err) {
    if (err instanceof JobGone || !(await jobExists(app, job.id))) return job;
    app.log.error({ err, jobId: job.id }, 'indexing job failed');
    return progress(app, job, { status: 'failed', finishedAt: new Date(), error: 'indexing stopped by an internal error; see the service log' }, 'ai.indexing.finished');
  }
}

async function jobExists(app: FastifyInstance, jobId: number): Promise<boolean> {
  const [row] = await app.database.db.select({ id: aiIndexingJobs.id }).from(aiIndexingJobs).where(eq(aiIndexingJobs.id, jobId));
  return Boolean(row);
}

/** Unit length, so that cosine similarity is a plain dot product. */
const normalized = (v: number[]) => {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
};

/** Chunks, embeds (when a model is set) and stores one batch; answers how many sources failed. */
async function indexBatch(
  app: FastifyInstance,
  organizationId: number,
  batch: SourceContent[],
  model: ConfiguredModel | null,
  touch: () => Promise<void>,
): Promise<number> {
  // With marked's lexer: loaded by the first indexing job, not at start (issue 42).
  const { chunkDocument, contentHash } = await import('./chunking.js');
  const chunked = batch.map((source) => ({ source, chunks: chunkDocument(source.titlePath, source.content) }));
  let vectors: Array<number[] | null> = [];
  let embedError: string | null = null;
  let tokens = 0;
  const all: Chunk[] = chunked.flatMap((c) => c.chunks);
  if (model) {
    try {
      for (let i = 0; i < all.length; i += EMBED_BATCH) {
        const part = all.slice(i, i + EMBED_BATCH);
        await touch();
        const answer = await model.client.embed(part.map((c) => `${c.heading}\n${c.content}`));
        vectors.push(...answer.vectors.map(normalized));
        tokens += answer.promptTokens;
      }
    } catch (err) {
      // Kept searchable by full text, marked failed: the next job tries its vectors again.
      embedError = (err as Error).message;
      vectors = [];
    }
  }
  await systemWrite(app, organizationId, async (ctx) => {
    let at = 0;
    for (const { source, chunks } of chunked) {
      const [doc] = await ctx.db
        .insert(aiDocuments)
        .values({
          organizationId,
          spaceId: source.spaceId,
          sourceType: source.sourceType,
          sourceId: source.sourceId,
          title: source.title,
          contentHash: contentHash(source.title, source.content),
          chunks: chunks.length,
          status: embedError ? 'failed' : 'indexed',
          error: embedError,
          embeddingModel: model && !embedError ? model.embeddingModel : null,
        })
        .onConflictDoUpdate({
          target: [aiDocuments.organizationId, aiDocuments.sourceType, aiDocuments.sourceId],
          set: {
            spaceId: source.spaceId,
            title: source.title,
            contentHash: contentHash(source.title, source.content),
            chunks: chunks.length,
            status: embedError ? 'failed' : 'indexed',
            error: embedError,
            embeddingModel: model && !embedError ? model.embeddingModel : null,
            indexedAt: sql`now()`,
          },
        })
        .returning({ id: aiDocuments.id });
      await ctx.db.delete(aiChunks).where(eq(aiChunks.documentId, doc!.id));
      if (chunks.length) {
        await ctx.db.insert(aiChunks).values(
          chunks.map((c, position) => ({ organizationId, documentId: doc!.id, position, heading: c.heading, content: c.content, embedding: vectors[at + position] ?? null })),
        );
      }
      at += chunks.length;
    }
    if (model && tokens > 0) await recordUsage(ctx.db, organizationId, model.embeddingModel!, { promptTokens: tokens, completionTokens: 0 });
  });
  return embedError ? batch.length : 0;
}
