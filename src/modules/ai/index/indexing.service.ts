import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import { aiIndexingJobs } from '../../../db/schema/ai.js';
import type { AiSourceType } from '../../../db/schema/ai.js';
import { spaceRoleOf } from '../../../platform/access.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { emit } from '../../../platform/events.js';
import { iso } from '../../../platform/http.js';
import { authorizeAi } from '../ai.policy.js';
import { presentJob } from '../ai.presenter.js';
import { currentSourcesSql } from './sources.js';

/** A space of the caller's organization, or 404 (admins see every space of it). */
async function requireSpace(ctx: Ctx, spaceId: number): Promise<void> {
  if ((await spaceRoleOf(ctx.db, ctx.actor, spaceId)) === null) throw notFound('space');
}

/**
 * Queues the indexing of a space; `wake` (after commit) lets this instance start it at once. One
 * queued or running job per space: a second answers 409 INDEXING_RUNNING (the partial unique index
 * holds the rule against a race as well).
 */
export async function createIndexingJob(ctx: Ctx, input: { spaceId: number; full?: boolean }, wake: () => void) {
  authorizeAi(ctx.actor, 'manageIndex');
  await requireSpace(ctx, input.spaceId);
  const [active] = await ctx.db
    .select({ id: aiIndexingJobs.id })
    .from(aiIndexingJobs)
    .where(and(eq(aiIndexingJobs.spaceId, input.spaceId), inArray(aiIndexingJobs.status, ['queued', 'running'])));
  if (active) throw new AppError('INDEXING_RUNNING', `indexing job ${active.id} of this space is still queued or running`);
  const [row] = await ctx.db
    .insert(aiIndexingJobs)
    .values({ organizationId: ctx.actor.organizationId, spaceId: input.spaceId, full: input.full ?? false, creatorId: ctx.actor.userId })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError('INDEXING_RUNNING', 'an indexing job of this space is still queued or running');
  emit(ctx, { type: 'ai.indexing.progress', spaceId: row.spaceId, editorsOnly: true, payload: presentJob(row) });
  ctx.afterCommit(wake);
  return presentJob(row);
}

export async function getIndexingJob(ctx: Ctx, jobId: number) {
  authorizeAi(ctx.actor, 'manageIndex');
  const [row] = await ctx.db.select().from(aiIndexingJobs).where(and(eq(aiIndexingJobs.id, jobId), eq(aiIndexingJobs.organizationId, ctx.actor.organizationId)));
  if (!row) throw notFound('indexing job');
  return presentJob(row);
}

type DocStatus = 'indexed' | 'stale' | 'failed';

interface DocRow {
  id: number;
  sourceType: AiSourceType;
  sourceId: number;
  spaceId: number;
  title: string;
  chunks: number;
  contentHash: string;
  status: DocStatus;
  indexedAt: Date;
  createdAt: Date;
  total: number;
}

/**
 * What the index holds, each entry compared with its source as it is now: `stale` when the source's
 * title or text changed since (or the source is gone, until the next job drops it).
 */
export async function listIndexedDocuments(
  ctx: Ctx,
  query: { spaceId?: number; sourceType?: AiSourceType; status?: DocStatus; limit: number; offset: number },
) {
  authorizeAi(ctx.actor, 'manageIndex');
  if (query.spaceId) await requireSpace(ctx, query.spaceId);
  const org = ctx.actor.organizationId;
  const rows = await queryRows<DocRow>(
    ctx.db,
    sql`select * , count(*) over () as total from (
          select d.id, d.source_type as "sourceType", d.source_id as "sourceId", d.space_id as "spaceId", d.title, d.chunks,
                 d.content_hash as "contentHash", d.indexed_at as "indexedAt", d.created_at as "createdAt",
                 case when d.status = 'failed' then 'failed' when s.hash is distinct from d.content_hash then 'stale' else 'indexed' end as status
          from ai_documents d
          left join (${currentSourcesSql(org, query.spaceId ? [query.spaceId] : undefined)}) s on s."sourceType" = d.source_type and s."sourceId" = d.source_id
          where d.organization_id = ${org}
            ${query.spaceId ? sql`and d.space_id = ${query.spaceId}` : sql``}
            ${query.sourceType ? sql`and d.source_type = ${query.sourceType}` : sql``}) x
        ${query.status ? sql`where x.status = ${query.status}` : sql``}
        order by x.id limit ${query.limit} offset ${query.offset}`,
  );
  const total = rows.length ? Number(rows[0]!.total) : await countDocuments(ctx, query);
  return {
    total,
    items: rows.map((r) => ({
      id: Number(r.id),
      sourceType: r.sourceType,
      sourceId: Number(r.sourceId),
      spaceId: Number(r.spaceId),
      title: r.title,
      chunks: Number(r.chunks),
      contentHash: r.contentHash,
      status: r.status,
      indexedAt: iso(r.indexedAt)!,
      createdAt: iso(r.createdAt)!,
    })),
  };
}

/** The total when the page asked for is past the end (the window count above had no row to ride on). */
async function countDocuments(ctx: Ctx, query: { spaceId?: number; sourceType?: AiSourceType; status?: DocStatus; offset: number }): Promise<number> {
  if (query.offset === 0) return 0;
  const all = await listIndexedDocuments(ctx, { ...query, limit: 1, offset: 0 });
  return all.total;
}

/** Sources not in the index at all (stale ones are in GET /ai/documents). */
export async function listUnindexed(ctx: Ctx, query: { spaceId?: number }) {
  authorizeAi(ctx.actor, 'manageIndex');
  if (query.spaceId) await requireSpace(ctx, query.spaceId);
  const org = ctx.actor.organizationId;
  const rows = await queryRows<{ sourceType: AiSourceType; sourceId: number; spaceId: number; title: string; updatedAt: Date; total: number }>(
    ctx.db,
    sql`select s."sourceType", s."sourceId", s."spaceId", s.title, s."updatedAt", count(*) over () as total
        from (${currentSourcesSql(org, query.spaceId ? [query.spaceId] : undefined)}) s
        where not exists (select 1 from ai_documents d where d.organization_id = ${org} and d.source_type = s."sourceType" and d.source_id = s."sourceId")
        order by s."updatedAt" desc, s."sourceId" limit 500`,
  );
  return {
    count: rows.length ? Number(rows[0]!.total) : 0,
    documents: rows.map((r) => ({ sourceType: r.sourceType, sourceId: Number(r.sourceId), spaceId: Number(r.spaceId), title: r.title, updatedAt: iso(r.updatedAt)! })),
  };
}
