import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { AiSourceType } from '../../../db/schema/ai.js';
import type { VectorIndex } from './vector-index.js';

/**
 * Finds the passages that answer a question among those the caller may read *now*: the index is a
 * derived copy, so every passage is joined to its live source and that source's spaces, with the
 * caller's spaces and draft rights read in this request (the same rules as the pages, reglaments
 * and projects policies). Nothing outside that set is ever loaded, so nothing outside it can reach
 * a prompt or an answer. Quiz questions and answers are not sources at all.
 *
 * Ranking is hybrid: full text (PostgreSQL's tsvector, GIN index and ts_rank_cd, on PGlite and
 * PostgreSQL alike) and, when the question has an embedding, cosine similarity of unit vectors
 * ranked in memory (vector-index.ts says why, docs/performance.md has the figures). The two lists
 * are fused by reciprocal rank (k = 60), which needs no calibration between the two kinds of score.
 */

export interface Passage {
  chunkId: number;
  sourceType: AiSourceType;
  sourceId: number;
  spaceId: number;
  title: string;
  heading: string;
  content: string;
  /** 0–1: 1 = first in every ranking used. */
  score: number;
}

export interface Readable {
  /** Spaces the caller may read (already narrowed to the one asked about, if any). */
  spaceIds: number[];
  /** Spaces where the caller may read draft reglaments (editor and above). */
  draftSpaceIds: number[];
}

const RRF_K = 60;
/** Candidates per ranking. */
const CANDIDATES = 24;

/** The live-source check: a document whose source the caller can read at this moment. */
function readableDocument(organizationId: number, readable: Readable): SQL {
  const spaces = idArray(readable.spaceIds);
  const drafts = idArray(readable.draftSpaceIds);
  return sql`(
    (d.source_type = 'page' and exists (
      select 1 from pages p where p.id = d.source_id and p.organization_id = ${organizationId} and p.archived_at is null and p.space_id = any(${spaces})))
    or (d.source_type = 'reglament' and exists (
      select 1 from reglaments r where r.id = d.source_id and r.organization_id = ${organizationId}
        and exists (select 1 from reglament_spaces rs where rs.reglament_id = r.id and rs.space_id = any(${spaces}))
        and (not r.draft or exists (select 1 from reglament_spaces rs where rs.reglament_id = r.id and rs.space_id = any(${drafts})))))
    or (d.source_type = 'project-documentation' and exists (
      select 1 from projects pr where pr.id = d.source_id and pr.organization_id = ${organizationId} and pr.deleted_at is null
        and (pr.space_id = any(${spaces}) or exists (select 1 from project_spaces ps where ps.project_id = pr.id and ps.space_id = any(${spaces}))))))`;
}

/** Any word of the question may match (an AND of every word would miss most passages). */
const tsQuery = (question: string) => sql`nullif(replace(plainto_tsquery('english', ${question})::text, ' & ', ' | '), '')::tsquery`;

export async function retrievePassages(
  db: Queryable,
  organizationId: number,
  readable: Readable,
  question: string,
  options: { limit: number; queryVector?: number[] | null; vectors?: VectorIndex },
): Promise<Passage[]> {
  if (readable.spaceIds.length === 0) return [];
  // The permission is decided per document (hundreds), never per chunk (tens of thousands).
  const allowed = await queryRows<{ id: number }>(
    db,
    sql`select d.id from ai_documents d where d.organization_id = ${organizationId} and ${readableDocument(organizationId, readable)}`,
  );
  if (allowed.length === 0) return [];
  const allowedIds = allowed.map((d) => Number(d.id));
  const textHits = await queryRows<{ id: number }>(
    db,
    sql`select c.id from ai_chunks c, (select ${tsQuery(question)} as query) q
        where q.query is not null and c.tsv @@ q.query and c.organization_id = ${organizationId} and c.document_id = any(${idArray(allowedIds)})
        order by ts_rank_cd(c.tsv, q.query, 32) desc, c.id limit ${CANDIDATES}`,
  );
  const vectorHits =
    options.queryVector?.length && options.vectors
      ? await options.vectors.nearest(db, organizationId, options.queryVector, new Set(allowedIds), CANDIDATES)
      : [];

  // Reciprocal rank fusion over the rankings that found anything.
  const fused = new Map<number, number>();
  textHits.forEach((h, i) => fused.set(Number(h.id), (fused.get(Number(h.id)) ?? 0) + 1 / (RRF_K + i + 1)));
  vectorHits.forEach(([id], i) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  if (fused.size === 0) return [];
  const best = ((textHits.length ? 1 : 0) + (vectorHits.length ? 1 : 0)) / (RRF_K + 1);
  const scored = [...fused.entries()]
    .map(([id, score]) => ({ id, score: score / best }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, options.limit);
  const details = await queryRows<Omit<Passage, 'score' | 'chunkId'> & { id: number }>(
    db,
    sql`select c.id, d.source_type as "sourceType", d.source_id as "sourceId", d.space_id as "spaceId", d.title, c.heading, c.content
        from ai_chunks c join ai_documents d on d.id = c.document_id
        where c.organization_id = ${organizationId} and c.id = any(${idArray(scored.map((s) => s.id))})`,
  );
  const byId = new Map(details.map((d) => [Number(d.id), d]));
  return scored.flatMap((s) => {
    const d = byId.get(s.id);
    if (!d) return [];
    return [{ chunkId: s.id, sourceType: d.sourceType, sourceId: Number(d.sourceId), spaceId: Number(d.spaceId), title: d.title, heading: d.heading, content: d.content, score: Math.round(s.score * 1000) / 1000 }];
  });
}
