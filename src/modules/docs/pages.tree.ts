import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { compact, placeAt } from '../../platform/ordering.js';
import { authorizePage, type PageRef } from './docs.policy.js';
import { idArray, loadPage, loadPageFull, siblingsScope, subtreeIds, type DocsEnv } from './docs.queries.js';
import type { PageDto, PageFullDto } from './docs.schemas.js';
import { emitPage, requireLiveParentInSpace } from './pages.service.js';
import { recordPageVersion } from './versioning.js';

type Env = Pick<DocsEnv, 'publicUrl'>;

/**
 * Moves a page (with its subtree) under a new parent in a group: the subtree follows into the group,
 * the old siblings close the gap and the new ones make room, all under their row locks.
 */
async function relocate(ctx: Ctx, page: PageRef, target: { groupId: number; parentPageId: number | null }, order: number | undefined): Promise<void> {
  if (target.groupId === page.documentationGroupId && target.parentPageId === page.parentPageId) {
    // Same place: only the position changes (none given keeps it).
    if (order !== undefined) await placeAt(ctx.db, siblingsScope(target.groupId, target.parentPageId), page.id, order);
    return;
  }
  if (target.groupId !== page.documentationGroupId) {
    const ids = await subtreeIds(ctx.db, page.id);
    await ctx.db.execute(sql`update pages set documentation_group_id = ${target.groupId} where id = any(${idArray(ids)}::bigint[])`);
  }
  await ctx.db.execute(sql`update pages set parent_page_id = ${target.parentPageId}, updated_at = now() where id = ${page.id}`);
  await compact(ctx.db, siblingsScope(page.documentationGroupId, page.parentPageId));
  await placeAt(ctx.db, siblingsScope(target.groupId, target.parentPageId), page.id, order);
}

/** `order` among the siblings; with another documentationGroupId, to that group's top level. */
export async function movePage(ctx: Ctx, env: Env, pageId: number, input: { order: number; documentationGroupId?: number }): Promise<PageDto> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const groupId = input.documentationGroupId ?? page.documentationGroupId;
  if (groupId !== page.documentationGroupId) {
    const rows = await queryRows(
      ctx.db,
      sql`select 1 from documentation_groups where id = ${groupId} and space_id = ${page.spaceId} and organization_id = ${ctx.actor.organizationId} for share`,
    );
    if (rows.length === 0) throw new AppError('REFERENCE_NOT_FOUND', 'documentation group not found in this space');
  }
  const parentPageId = groupId === page.documentationGroupId ? page.parentPageId : null;
  await relocate(ctx, page, { groupId, parentPageId }, input.order);
  return emitPage(ctx, 'page.moved', await loadPage(ctx.db, ctx.actor, pageId, env));
}

/** Nests a page under another one of its space (null: the top level of its group). Never under itself or its own subtree. */
export async function nestPage(ctx: Ctx, env: Env, pageId: number, input: { parentPageId: number | null; order?: number }): Promise<PageDto> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  let groupId = page.documentationGroupId;
  if (input.parentPageId !== null) {
    const subtree = await subtreeIds(ctx.db, pageId);
    if (subtree.includes(input.parentPageId)) {
      throw new AppError('VALIDATION_FAILED', 'a page cannot be nested under itself or one of its descendants', [
        { path: '/parentPageId', message: 'is the page itself or one of its descendants' },
      ]);
    }
    groupId = (await requireLiveParentInSpace(ctx, input.parentPageId, page.spaceId)).documentationGroupId;
  }
  await relocate(ctx, page, { groupId, parentPageId: input.parentPageId }, input.order);
  return emitPage(ctx, 'page.moved', await loadPage(ctx.db, ctx.actor, pageId, env));
}

interface SourceRow {
  id: number;
  parentPageId: number | null;
  name: string;
  icon: string | null;
  content: string;
}

const COPY_SUFFIX = ' (copy)';

/**
 * Copies a page right after the original: name, icon, content and files (shared, not re-stored),
 * unpublished, with a fresh history. With children, the unarchived subtree is copied in its order.
 */
export async function duplicatePage(ctx: Ctx, env: Env, pageId: number, input: { withChildren?: boolean }): Promise<PageFullDto> {
  const page = await authorizePage(ctx.db, ctx.actor, pageId, 'write');
  const ids = input.withChildren ? await subtreeIds(ctx.db, pageId) : [pageId];
  // Parents come before children (depth order), so every copy's parent is already copied.
  const rows = await queryRows<SourceRow & { depth: number }>(
    ctx.db,
    sql`select p.id, p.parent_page_id as "parentPageId", p.name, p.icon, p.content
        from unnest(${idArray(ids)}::bigint[]) with ordinality as s(id, n) join pages p on p.id = s.id
        where p.id = ${pageId} or p.archived_at is null
        order by s.n`,
  );
  const copies = new Map<number, number>();
  const nextChildOrder = new Map<number, number>();
  for (const row of rows) {
    const sourceId = Number(row.id);
    const isRoot = sourceId === pageId;
    const parentCopy = isRoot ? page.parentPageId : copies.get(Number(row.parentPageId));
    // A child of an archived (skipped) page is skipped too.
    if (!isRoot && parentCopy === undefined) continue;
    const name = isRoot ? `${row.name.slice(0, 500 - COPY_SUFFIX.length)}${COPY_SUFFIX}` : row.name;
    const order = isRoot ? 0 : (nextChildOrder.get(parentCopy!) ?? 0);
    const [inserted] = await queryRows<{ id: number }>(
      ctx.db,
      sql`insert into pages (organization_id, space_id, documentation_group_id, parent_page_id, name, icon, content, "order", creator_id, updated_by_id)
          values (${ctx.actor.organizationId}, ${page.spaceId}, ${page.documentationGroupId}, ${parentCopy ?? null}, ${name}, ${row.icon},
                  ${row.content}, ${order}, ${ctx.actor.userId}, ${ctx.actor.userId})
          returning id`,
    );
    const copyId = Number(inserted!.id);
    copies.set(sourceId, copyId);
    if (!isRoot) nextChildOrder.set(parentCopy!, order + 1);
    await ctx.db.execute(sql`insert into page_files (organization_id, page_id, file_id)
                             select organization_id, ${copyId}, file_id from page_files where page_id = ${sourceId}`);
    await recordPageVersion(ctx.db, ctx.actor, copyId, 1, row.content);
  }
  const rootCopy = copies.get(pageId)!;
  const scope = siblingsScope(page.documentationGroupId, page.parentPageId);
  const [original] = await queryRows<{ order: number }>(ctx.db, sql`select "order" from pages where id = ${pageId}`);
  await placeAt(ctx.db, scope, rootCopy, Number(original!.order) + 1);
  // One event for the copy's root: its copied children come with the tree the client reloads.
  return emitPage(ctx, 'page.created', await loadPageFull(ctx.db, ctx.actor, rootCopy, env));
}
