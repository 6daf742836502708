import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { notFound } from '../../platform/errors.js';
import type { OrderedScope } from '../../platform/ordering.js';
import type { FileStore } from '../../platform/files.js';
import type { FileRow } from '../files/files.service.js';
import { presentFile } from '../files/files.presenter.js';
import { presentPage, type PageRecord } from './docs.presenter.js';
import type { PageDto, PageFullDto } from './docs.schemas.js';

/** What page use cases need from the app besides the request: where public links point, where blobs live. */
export interface DocsEnv {
  publicUrl: string;
  files: FileStore;
}

/** Siblings of one position scope: the top level of a group, or one page's children. */
export const siblingsScope = (groupId: number, parentPageId: number | null): OrderedScope => ({
  table: 'pages',
  key: 'id',
  where: sql`documentation_group_id = ${groupId} and parent_page_id is not distinct from ${parentPageId}::bigint`,
});

export const groupsScope = (spaceId: number): OrderedScope => ({ table: 'documentation_groups', key: 'id', where: sql`space_id = ${spaceId}` });

const PAGE_COLUMNS = sql`p.id, p.space_id as "spaceId", p.documentation_group_id as "documentationGroupId",
  p.parent_page_id as "parentPageId", p.name, p.icon, p."order", p.public_token as "publicToken",
  p.archived_at as "archivedAt", p.version, p.creator_id as "creatorId", p.updated_by_id as "updatedById",
  p.created_at as "createdAt", p.updated_at as "updatedAt", us.collapsed`;

async function pageRecords(db: Queryable, actor: Actor, where: SQL, extra = sql``): Promise<Array<PageRecord & { content?: string }>> {
  return queryRows(
    db,
    sql`select ${PAGE_COLUMNS} ${extra} from pages p
        left join page_user_settings us on us.page_id = p.id and us.user_id = ${actor.userId}
        where p.organization_id = ${actor.organizationId} and ${where}`,
  );
}

export async function loadPage(db: Queryable, actor: Actor, pageId: number, env: Pick<DocsEnv, 'publicUrl'>): Promise<PageDto> {
  const [row] = await pageRecords(db, actor, sql`p.id = ${pageId}`);
  if (!row) throw notFound('page');
  return presentPage(row, env.publicUrl);
}

export async function loadPageFull(db: Queryable, actor: Actor, pageId: number, env: Pick<DocsEnv, 'publicUrl'>): Promise<PageFullDto> {
  const [row] = await pageRecords(db, actor, sql`p.id = ${pageId}`, sql`, p.content`);
  if (!row) throw notFound('page');
  const files = await queryRows<FileRow>(
    db,
    sql`select f.id, f.key, f.name, f.size, f.mime_type as "mimeType" from page_files pf join files f on f.id = pf.file_id
        where pf.page_id = ${pageId} order by pf.created_at, f.id`,
  );
  return {
    ...presentPage(row, env.publicUrl),
    content: row.content ?? '',
    files: files.map((f) => presentFile({ ...f, id: Number(f.id), size: Number(f.size) })),
  };
}

/** The page and every page below it, parents before children, siblings in their order. */
export async function subtreeIds(db: Queryable, pageId: number): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`with recursive sub(id, depth, position) as (
          select id, 0, "order" from pages where id = ${pageId}
          union all
          select p.id, sub.depth + 1, p."order" from pages p join sub on p.parent_page_id = sub.id)
        select id from sub order by depth, position, id`,
  );
  return rows.map((r) => Number(r.id));
}

export const idArray = (ids: number[]) => `{${ids.join(',')}}`;
