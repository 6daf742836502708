import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { emit, type EventType } from '../../platform/events.js';
import { compact, placeAt } from '../../platform/ordering.js';
import { presentFile } from '../files/files.presenter.js';
import { deleteFiles, recordFile, type ReceivedFile } from '../files/files.service.js';
import { announceTabs, tabsPointingAt } from '../projects/tabs/tabs.service.js';
import { authorizeDocsInSpace, authorizePage } from './docs.policy.js';
import { presentVersion, type VersionRecord } from './docs.presenter.js';
import { idArray, loadPage, loadPageFull, siblingsScope, subtreeIds, type DocsEnv } from './docs.queries.js';
import type { PageDto, PageFullDto } from './docs.schemas.js';
import { recordPageVersion, requireContentSize, requireFresh } from './versioning.js';

type Env = Pick<DocsEnv, 'publicUrl'>;

/** A page event goes to the readers of its space, with the page as the route that changed it answers it. */
export function emitPage<T extends PageDto>(ctx: Ctx, type: EventType, page: T): T {
  emit(ctx, { type, spaceId: page.spaceId, payload: page });
  return page;
}

/** A group or parent named in a request must be of the same space (400, as for any bad reference). */
async function requireGroupInSpace(ctx: Ctx, groupId: number, spaceId: number): Promise<void> {
  const rows = await queryRows(
    ctx.db,
    sql`select 1 from documentation_groups where id = ${groupId} and space_id = ${spaceId} and organization_id = ${ctx.actor.organizationId} for share`,
  );
  if (rows.length === 0) throw new AppError('REFERENCE_NOT_FOUND', 'documentation group not found in this space');
}

export async function requireLiveParentInSpace(ctx: Ctx, parentPageId: number, spaceId: number): Promise<{ documentationGroupId: number }> {
  const [row] = await queryRows<{ documentationGroupId: number; archived: boolean }>(
    ctx.db,
    sql`select documentation_group_id as "documentationGroupId", archived_at is not null as archived from pages
        where id = ${parentPageId} and space_id = ${spaceId} and organization_id = ${ctx.actor.organizationId} for share`,
  );
  if (!row) throw new AppError('REFERENCE_NOT_FOUND', 'parent page not found in this space');
  if (row.archived) throw new AppError('VALIDATION_FAILED', 'the parent page is archived', [{ path: '/parentPageId', message: 'is archived' }]);
  return { documentationGroupId: Number(row.documentationGroupId) };
}

export interface CreatePageInput {
  spaceId: number;
  documentationGroupId: number;
  parentPageId?: number | null;
  name: string;
  icon?: string | null;
  content?: string;
  order?: number;
}

/** A new page at `order` among its siblings (the end by default); its first content is version 1. */
export async function createPage(ctx: Ctx, env: Env, input: CreatePageInput): Promise<PageFullDto> {
  await authorizeDocsInSpace(ctx.db, ctx.actor, input.spaceId, 'write');
  await requireGroupInSpace(ctx, input.documentationGroupId, input.spaceId);
  const parentPageId = input.parentPageId ?? null;
  if (parentPageId !== null) {
    const parent = await requireLiveParentInSpace(ctx, parentPageId, input.spaceId);
    if (parent.documentationGroupId !== input.documentationGroupId) {
      throw new AppError('VALIDATION_FAILED', 'the parent page is in another documentation group', [
        { path: '/parentPageId', message: 'must be in documentationGroupId' },
      ]);
    }
  }
  const content = input.content ?? '';
  requireContentSize(content);
  const [row] = await queryRows<{ id: number }>(
    ctx.db,
    sql`insert into pages (organization_id, space_id, documentation_group_id, parent_page_id, name, icon, content, creator_id, updated_by_id)
        values (${ctx.actor.organizationId}, ${input.spaceId}, ${input.documentationGroupId}, ${parentPageId}, ${input.name.trim()},
                ${input.icon ?? null}, ${content}, ${ctx.actor.userId}, ${ctx.actor.userId})
        returning id`,
  );
  const pageId = Number(row!.id);
  await placeAt(ctx.db, siblingsScope(input.documentationGroupId, parentPageId), pageId, input.order);
  await recordPageVersion(ctx.db, ctx.actor, pageId, 1, content);
  return emitPage(ctx, 'page.created', await loadPageFull(ctx.db, ctx.actor, pageId, env));
}

export async function getPage(ctx: Ctx, env: Env, pageId: number): Promise<PageFullDto> {
  await authorizePage(ctx.db, ctx.actor, pageId, 'read');
  return loadPageFull(ctx.db, ctx.actor, pageId, env);
}

/**
 * Replaces the content. With If-Match, a version other than the current one is refused (409) and
 * nothing is written; the page row is locked first, so two writers of one version cannot both win.
 */
export async function writePageContent(ctx: Ctx, env: Env, pageId: number, input: { content: string; ifMatch?: string }): Promise<PageFullDto> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  requireFresh(input.ifMatch, page.version);
  requireContentSize(input.content);
  const version = page.version + 1;
  await ctx.db.execute(sql`update pages set content = ${input.content}, version = ${version}, updated_by_id = ${ctx.actor.userId}, updated_at = now()
                           where id = ${pageId}`);
  await recordPageVersion(ctx.db, ctx.actor, pageId, version, input.content);
  return emitPage(ctx, 'page.updated', await loadPageFull(ctx.db, ctx.actor, pageId, env));
}

/** Name and icon: properties of the page, not of its content, so the version does not move. */
export async function updatePageProperties(ctx: Ctx, env: Env, pageId: number, patch: { name?: string; icon?: string | null }): Promise<PageDto> {
  await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const sets = [sql`updated_by_id = ${ctx.actor.userId}`, sql`updated_at = now()`];
  if (patch.name !== undefined) sets.push(sql`name = ${patch.name.trim()}`);
  if (patch.icon !== undefined) sets.push(sql`icon = ${patch.icon}`);
  await ctx.db.execute(sql`update pages set ${sql.join(sets, sql`, `)} where id = ${pageId}`);
  return emitPage(ctx, 'page.updated', await loadPage(ctx.db, ctx.actor, pageId, env));
}

export async function setPageCollapsed(ctx: Ctx, env: Env, pageId: number, collapsed: boolean): Promise<PageDto> {
  await authorizePage(ctx.db, ctx.actor, pageId, 'personalize');
  await ctx.db.execute(sql`insert into page_user_settings (organization_id, page_id, user_id, collapsed)
                           values (${ctx.actor.organizationId}, ${pageId}, ${ctx.actor.userId}, ${collapsed})
                           on conflict (page_id, user_id) do update set collapsed = excluded.collapsed`);
  return loadPage(ctx.db, ctx.actor, pageId, env);
}

/** Publishing keeps an existing token (a retried request does not break shared links); unpublishing drops it. */
export async function setPagePublic(ctx: Ctx, env: Env, pageId: number, published: boolean): Promise<PageDto> {
  await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  // 192 random bits: the token is the only secret guarding a published page.
  const token = published ? randomBytes(24).toString('base64url') : null;
  await ctx.db.execute(
    published
      ? sql`update pages set public_token = coalesce(public_token, ${token}), updated_at = now() where id = ${pageId}`
      : sql`update pages set public_token = null, updated_at = now() where id = ${pageId}`,
  );
  return emitPage(ctx, published ? 'page.published' : 'page.unpublished', await loadPage(ctx.db, ctx.actor, pageId, env));
}

/** Archives the page and everything below it; public links stop answering at once. */
export async function archivePage(ctx: Ctx, env: Env, pageId: number): Promise<PageDto> {
  await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const ids = await subtreeIds(ctx.db, pageId);
  await ctx.db.execute(sql`update pages set archived_at = now(), updated_at = now()
                           where id = any(${idArray(ids)}::bigint[]) and archived_at is null`);
  return emitPage(ctx, 'page.archived', await loadPage(ctx.db, ctx.actor, pageId, env));
}

/**
 * Restores the page with its subtree. Under a parent that is still archived it would stay hidden,
 * so it moves to the end of its group's top level instead.
 */
export async function restorePage(ctx: Ctx, env: Env, pageId: number): Promise<PageDto> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const ids = await subtreeIds(ctx.db, pageId);
  await ctx.db.execute(sql`update pages set archived_at = null, updated_at = now()
                           where id = any(${idArray(ids)}::bigint[]) and archived_at is not null`);
  if (page.parentPageId !== null) {
    const [parent] = await queryRows<{ archived: boolean }>(ctx.db, sql`select archived_at is not null as archived from pages where id = ${page.parentPageId}`);
    if (parent?.archived) {
      await ctx.db.execute(sql`update pages set parent_page_id = null where id = ${pageId}`);
      await compact(ctx.db, siblingsScope(page.documentationGroupId, page.parentPageId));
      await placeAt(ctx.db, siblingsScope(page.documentationGroupId, null), pageId, undefined);
    }
  }
  return emitPage(ctx, 'page.restored', await loadPage(ctx.db, ctx.actor, pageId, env));
}

/** Deletes the page and its subtree, with the files no other page refers to (blobs after commit). */
export async function deletePage(ctx: Ctx, env: DocsEnv, pageId: number): Promise<void> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const subtree = await subtreeIds(ctx.db, pageId);
  const ids = idArray(subtree);
  const orphans = await queryRows<{ id: number; key: string }>(
    ctx.db,
    sql`select f.id, f.key from files f
        where f.id in (select file_id from page_files where page_id = any(${ids}::bigint[]))
          and not exists (select 1 from page_files o where o.file_id = f.id and o.page_id <> all(${ids}::bigint[]))
          and f.organization_id = ${ctx.actor.organizationId}`,
  );
  const tabs = await tabsPointingAt(ctx.db, ctx.actor.organizationId, { pageIds: subtree });
  await ctx.db.execute(sql`delete from pages where id = ${pageId}`);
  emit(ctx, { type: 'page.deleted', spaceId: page.spaceId, payload: { id: pageId } });
  await announceTabs(ctx, tabs);
  await deleteFiles(ctx, env.files, orphans.map((f) => Number(f.id)));
  await compact(ctx.db, siblingsScope(page.documentationGroupId, page.parentPageId));
}

export async function uploadPageFiles(ctx: Ctx, env: DocsEnv, pageId: number, received: ReceivedFile[]) {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const stored = [];
  for (const file of received) {
    const row = await recordFile(ctx, env.files, file, { purpose: 'page', organizationId: ctx.actor.organizationId, spaceId: page.spaceId });
    await ctx.db.execute(sql`insert into page_files (organization_id, page_id, file_id) values (${ctx.actor.organizationId}, ${pageId}, ${row.id})`);
    stored.push(presentFile(row));
  }
  await ctx.db.execute(sql`update pages set updated_at = now(), updated_by_id = ${ctx.actor.userId} where id = ${pageId}`);
  // The route answers the files; readers get the page with its new file list.
  emitPage(ctx, 'page.updated', await loadPageFull(ctx.db, ctx.actor, pageId, env));
  return stored;
}

/** The content history, newest first. */
export async function listPageVersions(ctx: Ctx, pageId: number, page: { limit: number; offset: number }) {
  await authorizePage(ctx.db, ctx.actor, pageId, 'read');
  const rows = await queryRows<VersionRecord & { total: number }>(
    ctx.db,
    sql`select id, page_id as "pageId", version, user_id as "userId", size, created_at as "createdAt", count(*) over ()::int as total
        from page_versions where page_id = ${pageId} and organization_id = ${ctx.actor.organizationId}
        order by version desc limit ${page.limit} offset ${page.offset}`,
  );
  return { items: rows.map(presentVersion), total: Number(rows[0]?.total ?? 0) };
}
