import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { AiSourceType } from '../../../db/schema/ai.js';

/**
 * What the assistant can index, read straight from the three source tables (the index is a derived
 * copy; retrieval checks the live rows again). A source lives under its home space: a page's space,
 * a reglament's home space (it may also be shown elsewhere), a project's home space for its
 * documentation. Archived pages and projects in the trash are not sources; draft reglaments are
 * (only editors get them back, see retrieval).
 */

export interface SourceRef {
  sourceType: AiSourceType;
  sourceId: number;
  spaceId: number;
  title: string;
  updatedAt: Date;
  hash: string;
}

export interface SourceContent extends Omit<SourceRef, 'hash'> {
  content: string;
  /** Ancestors' names then its own (pages); just the title otherwise. */
  titlePath: string[];
}

/** SQL twin of chunking.contentHash: SHA-256 of title, newline, content. */
const hashOf = (title: SQL, content: SQL) => sql`encode(sha256(convert_to(${title} || chr(10) || ${content}, 'UTF8')), 'hex')`;

/** The union of the three source kinds, as one select of (type, id, space, title, content, updated). */
function sourcesSql(organizationId: number, where: { spaceIds?: number[]; keys?: Array<{ sourceType: AiSourceType; sourceId: number }> }): SQL {
  const spaces = where.spaceIds ? idArray(where.spaceIds) : null;
  const idsOf = (type: AiSourceType) => idArray((where.keys ?? []).filter((k) => k.sourceType === type).map((k) => k.sourceId));
  const filter = (type: AiSourceType, idColumn: SQL, spaceColumn: SQL) =>
    sql`${spaces ? sql`and ${spaceColumn} = any(${spaces})` : sql``} ${where.keys ? sql`and ${idColumn} = any(${idsOf(type)})` : sql``}`;
  return sql`
    select 'page' as "sourceType", p.id as "sourceId", p.space_id as "spaceId", p.name as title, p.content, p.updated_at as "updatedAt"
      from pages p
      where p.organization_id = ${organizationId} and p.archived_at is null ${filter('page', sql`p.id`, sql`p.space_id`)}
    union all
    select 'reglament', r.id, r.space_id, r.name, r.content, r.updated_at
      from reglaments r
      where r.organization_id = ${organizationId} ${filter('reglament', sql`r.id`, sql`r.space_id`)}
    union all
    select 'project-documentation', pr.id, pr.space_id, pr.name, d.content, d.updated_at
      from project_documentation d join projects pr on pr.id = d.project_id
      where d.organization_id = ${organizationId} and pr.deleted_at is null and d.content <> '' ${filter('project-documentation', sql`pr.id`, sql`pr.space_id`)}`;
}

const toRef = (r: SourceRef): SourceRef => ({ ...r, sourceId: Number(r.sourceId), spaceId: Number(r.spaceId), updatedAt: new Date(r.updatedAt) });

/** A select of every source (of the given spaces, or all) with the hash of its current text: sourceType, sourceId, spaceId, title, updatedAt, hash. */
export const currentSourcesSql = (organizationId: number, spaceIds?: number[]): SQL =>
  sql`select s."sourceType", s."sourceId", s."spaceId", s.title, s."updatedAt", ${hashOf(sql`s.title`, sql`s.content`)} as hash
      from (${sourcesSql(organizationId, spaceIds ? { spaceIds } : {})}) s`;

/** Every source of the given spaces with the hash of its current text (not the text itself). */
export async function listSources(db: Queryable, organizationId: number, spaceIds: number[]): Promise<SourceRef[]> {
  const rows = await queryRows<SourceRef>(db, currentSourcesSql(organizationId, spaceIds));
  return rows.map(toRef);
}

/** The text of some sources (a batch of a job), with each page's title path. */
export async function loadSources(db: Queryable, organizationId: number, keys: Array<{ sourceType: AiSourceType; sourceId: number }>): Promise<SourceContent[]> {
  if (keys.length === 0) return [];
  const rows = await queryRows<SourceContent & { path: string[] | null }>(
    db,
    sql`select s.*,
          case when s."sourceType" = 'page' then (
            with recursive up(id, parent, name, depth) as (
              select p.id, p.parent_page_id, p.name, 0 from pages p where p.id = s."sourceId"
              union all
              select p.id, p.parent_page_id, p.name, up.depth + 1 from pages p join up on p.id = up.parent where up.depth < 50)
            select array_agg(name order by depth desc) from up) end as path
        from (${sourcesSql(organizationId, { keys })}) s`,
  );
  return rows.map((r) => ({
    sourceType: r.sourceType,
    sourceId: Number(r.sourceId),
    spaceId: Number(r.spaceId),
    title: r.title,
    content: r.content,
    updatedAt: new Date(r.updatedAt),
    titlePath: r.path && r.path.length ? r.path : [r.title],
  }));
}
