import { and, asc, count, eq, sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import { spaceGroups } from '../../../db/schema/index.js';
import { readableSpaceIds } from '../../../platform/access.js';
import type { Actor } from '../../../platform/auth.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { compact, placeAt, type OrderedScope } from '../../../platform/ordering.js';
import { sidebarOf } from '../spaces.service.js';
import { emptyFolder, setFolderSpaces } from '../spaces.sidebar.js';
import { authorizeOwnGroup } from './groups.policy.js';
import { presentSpaceGroup } from './groups.presenter.js';
import type { SpaceGroupDto } from './groups.schemas.js';

const groupsOf = (actor: Actor) => and(eq(spaceGroups.userId, actor.userId), eq(spaceGroups.organizationId, actor.organizationId));
const groupScope = (actor: Actor): OrderedScope => ({
  table: 'space_groups',
  key: 'id',
  where: sql`organization_id = ${actor.organizationId} and user_id = ${actor.userId}`,
});

/** The spaces each folder holds for the caller, limited to spaces it can still read. */
async function folderContents(db: Queryable, actor: Actor, groupIds: number[]): Promise<Map<number, number[]>> {
  const contents = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return contents;
  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  const rows = await queryRows<{ groupId: number; spaceId: number }>(
    db,
    sql`select us.space_group_id as "groupId", us.space_id as "spaceId" from space_user_settings us
        where us.organization_id = ${actor.organizationId} and us.user_id = ${actor.userId}
          and us.space_group_id = any(${idArray(groupIds)})
          ${orgWide ? sql`` : sql`and exists (select 1 from space_members sm where sm.space_id = us.space_id and sm.user_id = ${actor.userId})`}
        order by us."order", us.space_id`,
  );
  for (const r of rows) contents.get(Number(r.groupId))?.push(Number(r.spaceId));
  return contents;
}

async function loadGroup(db: Queryable, actor: Actor, groupId: number): Promise<SpaceGroupDto> {
  const [row] = await db.select().from(spaceGroups).where(and(eq(spaceGroups.id, groupId), groupsOf(actor)));
  const contents = await folderContents(db, actor, [groupId]);
  return presentSpaceGroup(row!, contents.get(groupId) ?? []);
}

export async function listSpaceGroups(ctx: Ctx, page: { limit: number; offset: number }): Promise<{ items: SpaceGroupDto[]; total: number }> {
  const { db, actor } = ctx;
  const [total] = await db.select({ n: count() }).from(spaceGroups).where(groupsOf(actor));
  const rows = await db.select().from(spaceGroups).where(groupsOf(actor)).orderBy(asc(spaceGroups.order), asc(spaceGroups.id)).limit(page.limit).offset(page.offset);
  const contents = await folderContents(db, actor, rows.map((r) => r.id));
  return { items: rows.map((r) => presentSpaceGroup(r, contents.get(r.id) ?? [])), total: Number(total?.n ?? 0) };
}

/** Spaces named in a body must be ones the caller can read; one query for the whole list. */
async function requireReadable(db: Queryable, actor: Actor, spaceIds: number[]): Promise<void> {
  if (spaceIds.length === 0) return;
  const readable = new Set(await readableSpaceIds(db, actor));
  const missing = spaceIds.map((id, i) => ({ id, i })).filter(({ id }) => !readable.has(id));
  if (missing.length) {
    throw new AppError(
      'REFERENCE_NOT_FOUND',
      `spaces not found: ${missing.map((m) => m.id).join(', ')}`,
      missing.map(({ i }) => ({ path: `/spaceIds/${i}`, message: 'space not found' })),
    );
  }
}

export async function createSpaceGroup(ctx: Ctx, input: { name: string; order?: number; spaceIds?: number[] }): Promise<SpaceGroupDto> {
  const { db, actor } = ctx;
  await requireReadable(db, actor, input.spaceIds ?? []);
  const [row] = await db
    .insert(spaceGroups)
    .values({ organizationId: actor.organizationId, userId: actor.userId, name: input.name.trim(), order: 0 })
    .returning({ id: spaceGroups.id });
  const groupId = row!.id;
  await placeAt(db, groupScope(actor), groupId, input.order);
  if (input.spaceIds?.length) await setFolderSpaces(db, sidebarOf(actor), groupId, input.spaceIds);
  return loadGroup(db, actor, groupId);
}

async function updateGroup(ctx: Ctx, groupId: number, change: { name?: string; collapsed?: boolean }): Promise<SpaceGroupDto> {
  await authorizeOwnGroup(ctx.db, ctx.actor, groupId);
  await ctx.db.update(spaceGroups).set({ ...change, updatedAt: new Date() }).where(eq(spaceGroups.id, groupId));
  return loadGroup(ctx.db, ctx.actor, groupId);
}

export const renameSpaceGroup = (ctx: Ctx, groupId: number, name: string) => updateGroup(ctx, groupId, { name: name.trim() });
export const setSpaceGroupCollapsed = (ctx: Ctx, groupId: number, collapsed: boolean) => updateGroup(ctx, groupId, { collapsed });

export async function moveSpaceGroup(ctx: Ctx, groupId: number, order: number): Promise<SpaceGroupDto> {
  await authorizeOwnGroup(ctx.db, ctx.actor, groupId);
  await placeAt(ctx.db, groupScope(ctx.actor), groupId, order);
  await ctx.db.update(spaceGroups).set({ updatedAt: new Date() }).where(eq(spaceGroups.id, groupId));
  return loadGroup(ctx.db, ctx.actor, groupId);
}

export async function setSpaceGroupSpaces(ctx: Ctx, groupId: number, spaceIds: number[]): Promise<SpaceGroupDto> {
  const { db, actor } = ctx;
  await authorizeOwnGroup(db, actor, groupId);
  await requireReadable(db, actor, spaceIds);
  await setFolderSpaces(db, sidebarOf(actor), groupId, spaceIds);
  await db.update(spaceGroups).set({ updatedAt: new Date() }).where(eq(spaceGroups.id, groupId));
  return loadGroup(db, actor, groupId);
}

/** Deletes the folder; its spaces stay, ungrouped, after the ungrouped ones. */
export async function deleteSpaceGroup(ctx: Ctx, groupId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeOwnGroup(db, actor, groupId);
  await emptyFolder(db, sidebarOf(actor), groupId);
  await db.delete(spaceGroups).where(eq(spaceGroups.id, groupId));
  await compact(db, groupScope(actor));
}
