import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { AiSourceType } from '../../../db/schema/ai.js';

/**
 * Finds the passages that answer a question among those the caller may read *now*: the index is a
 * derived copy, so every passage is joined to its live source and that source's spaces, with the
 * caller's spaces and draft rights read in this request (the same rules as the pages, reglaments
 * and projects policies). Nothing outside that set is ever loaded, so nothing outside it can reach
 * a prompt or an answer. Quiz questions and answers are not sources at all.
 *
 * Ranking is hybrid: full text (PostgreSQL's tsvector and ts_rank_cd, on PGlite and PostgreSQL
 * alike) and, when the question has an embedding, cosine similarity of the unit vectors computed in
 * SQL (a dot product over unnest of the two real[]). The two lists are fused by reciprocal rank
 * (k = 60), which needs no calibration between the two kinds of score. Vectors are ranked in SQL,
 * not in memory: only the candidates the caller may read are scanned, and no embedding leaves the
 * database (see docs/performance.md for the measurement).
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

const vectorLiteral = (v: number[]) => `{${v.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}`;

export async function retrievePassages(
  db: Queryable,
  organizationId: number,
  readable: Readable,
  question: string,
  options: { limit: number; queryVector?: number[] | null },
): Promise<Passage[]> {
  if (readable.spaceIds.length === 0) return [];
  const vector = options.queryVector?.length ? vectorLiteral(options.queryVector) : null;
  const rows = await queryRows<{ id: number; textRank: number | null; vectorRank: number | null }>(
    db,
    sql`with q as (select ${tsQuery(question)} as query),
        allowed as (
          select c.id, c.tsv, c.embedding from ai_chunks c join ai_documents d on d.id = c.document_id
          where c.organization_id = ${organizationId} and ${readableDocument(organizationId, readable)}),
        by_text as (
          select a.id, row_number() over (order by ts_rank_cd(a.tsv, q.query, 32) desc, a.id) as rank
          from allowed a, q where q.query is not null and a.tsv @@ q.query
          order by rank limit ${CANDIDATES}),
        by_vector as (
          ${
            vector
              ? sql`select v.id, row_number() over (order by v.sim desc, v.id) as rank from (
                  select a.id, (select sum(x * y) from unnest(a.embedding, ${vector}::real[]) as t(x, y)) as sim
                  from allowed a where a.embedding is not null) v
                order by rank limit ${CANDIDATES}`
              : sql`select null::bigint as id, null::bigint as rank where false`
          })
        select coalesce(t.id, v.id) as id, t.rank as "textRank", v.rank as "vectorRank"
        from by_text t full join by_vector v on v.id = t.id`,
  );
  if (rows.length === 0) return [];
  // The rankings that found anything (vectors may be configured before any chunk has one).
  const lists = (rows.some((r) => r.textRank) ? 1 : 0) + (rows.some((r) => r.vectorRank) ? 1 : 0);
  const best = lists / (RRF_K + 1);
  const scored = rows
    .map((r) => ({
      id: Number(r.id),
      score: ((r.textRank ? 1 / (RRF_K + Number(r.textRank)) : 0) + (r.vectorRank ? 1 / (RRF_K + Number(r.vectorRank)) : 0)) / best,
    }))
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
