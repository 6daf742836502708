import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { files, spaceGroups, spaceMembers, spaceUserSettings, spaces } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import type { FileStore } from '../../platform/files.js';
import { AppError } from '../../platform/errors.js';
import { authorizeSpace } from './spaces.policy.js';
import type { SpaceDto, SpaceFullDto } from './spaces.schemas.js';
import { compactSidebars, placeInSidebar, setFavoriteEntry, type SidebarOwner } from './spaces.sidebar.js';
import { emit } from '../../platform/events.js';
import { emitSpaceFull } from './spaces.events.js';
import { loadSpace, loadSpaceFull, querySpaces } from './spaces.queries.js';
import { announceTabs, tabsPointingAt } from '../projects/tabs/tabs.service.js';

export const sidebarOf = (actor: Actor): SidebarOwner => ({ organizationId: actor.organizationId, userId: actor.userId });

export async function listSpaces(ctx: Ctx, filter: { archived?: boolean; favorite?: boolean; limit: number; offset: number }) {
  // Without a filter the list shows active spaces (routes.md: archived? defaults to false).
  return querySpaces(ctx.db, ctx.actor, { ...filter, archived: filter.archived ?? false });
}

/** A folder named in a request must be the caller's own (400, like any unknown reference in a body). */
export async function requireOwnGroup(db: Queryable, actor: Actor, groupId: number): Promise<void> {
  const [g] = await db
    .select({ id: spaceGroups.id })
    .from(spaceGroups)
    .where(and(eq(spaceGroups.id, groupId), eq(spaceGroups.userId, actor.userId), eq(spaceGroups.organizationId, actor.organizationId)));
  if (!g) throw new AppError('REFERENCE_NOT_FOUND', 'space group not found');
}

export async function createSpace(
  ctx: Ctx,
  input: { name: string; icon?: string | null; iconColor?: string | null; background?: string | null; spaceGroupId?: number | null },
): Promise<SpaceFullDto> {
  const { actor, db } = ctx;
  if (input.spaceGroupId) await requireOwnGroup(db, actor, input.spaceGroupId);
  const [space] = await db
    .insert(spaces)
    .values({
      organizationId: actor.organizationId,
      name: input.name.trim(),
      icon: input.icon ?? null,
      iconColor: input.iconColor ?? null,
      background: input.background ?? null,
      creatorId: actor.userId,
    })
    .returning({ id: spaces.id });
  const spaceId = space!.id;
  await db.insert(spaceMembers).values({ organizationId: actor.organizationId, spaceId, userId: actor.userId, role: 'admin', invitedById: actor.userId });
  await placeInSidebar(db, sidebarOf(actor), spaceId, input.spaceGroupId ?? null, undefined);
  const created = await loadSpaceFull(db, actor, spaceId);
  await emitSpaceFull(ctx, 'space.created', spaceId, created);
  return created;
}

export async function getSpace(ctx: Ctx, spaceId: number): Promise<SpaceFullDto> {
  await authorizeSpace(ctx.db, ctx.actor, spaceId, 'read');
  return loadSpaceFull(ctx.db, ctx.actor, spaceId);
}

/**
 * Deletes the space; the database cascades its members, settings, invite link, projects and tasks.
 * Files stored for the space go too (their blobs once the delete commits), and every sidebar that
 * held the space is renumbered.
 */
export async function deleteSpace(ctx: Ctx, store: FileStore, spaceId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'delete');
  await db.select({ id: spaces.id }).from(spaces).where(eq(spaces.id, spaceId)).for('update');
  const holders = await db.select({ userId: spaceUserSettings.userId }).from(spaceUserSettings).where(eq(spaceUserSettings.spaceId, spaceId));
  // Tabs elsewhere that show the space's pages or boards lose their target with it.
  const tabs = await tabsPointingAt(db, actor.organizationId, { spaceId });
  await db.delete(spaces).where(and(eq(spaces.id, spaceId), eq(spaces.organizationId, actor.organizationId)));
  emit(ctx, { type: 'space.deleted', spaceId, payload: { id: spaceId } });
  await announceTabs(ctx, tabs);
  const gone = await db
    .delete(files)
    .where(and(eq(files.spaceId, spaceId), eq(files.organizationId, actor.organizationId)))
    .returning({ key: files.key });
  await store.removeAfterCommit(ctx, gone.map((f) => f.key));
  await compactSidebars(db, actor.organizationId, holders.map((h) => h.userId));
}

/** The caller's own position (and, with spaceGroupId, folder) of the space. */
export async function reorderSpace(ctx: Ctx, spaceId: number, input: { order: number; spaceGroupId?: number | null }): Promise<SpaceDto> {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'personalize');
  if (input.spaceGroupId) await requireOwnGroup(db, actor, input.spaceGroupId);
  await placeInSidebar(db, sidebarOf(actor), spaceId, input.spaceGroupId, input.order);
  return loadSpace(db, actor, spaceId);
}

export async function setSpaceFavorite(ctx: Ctx, spaceId: number, favorite: boolean): Promise<SpaceDto> {
  await authorizeSpace(ctx.db, ctx.actor, spaceId, 'personalize');
  await setFavoriteEntry(ctx.db, sidebarOf(ctx.actor), spaceId, favorite);
  return loadSpace(ctx.db, ctx.actor, spaceId);
}
