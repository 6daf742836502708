import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { files, projectGroups, spaceGroups, spaceMembers, spaceUserSettings, spaces } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import type { FileStore } from '../../platform/files.js';
import { AppError, notFound } from '../../platform/errors.js';
import { authorizeSpace } from './spaces.policy.js';
import { reglamentGroupRefs } from '../reglaments/groups/groups.service.js';
import { documentationGroupRefs } from '../docs/groups.service.js';
import { presentSpace, type SpaceRecord } from './spaces.presenter.js';
import type { SpaceDto, SpaceFullDto } from './spaces.schemas.js';
import { compactSidebars, placeInSidebar, setFavoriteEntry, type SidebarOwner } from './spaces.sidebar.js';
import { loadInviteLink } from './members/invite-links.service.js';
import { emit } from '../../platform/events.js';
import { emitSpaceFull } from './spaces.events.js';
import { announceTabs, tabsPointingAt } from '../projects/tabs/tabs.service.js';

export const sidebarOf = (actor: Actor): SidebarOwner => ({ organizationId: actor.organizationId, userId: actor.userId });

/**
 * Spaces as one caller sees them: its role (organization owners/admins see every space as admin),
 * its own folder, position and favourite flag, and the member count — one query for any number.
 * A space the caller has no sidebar entry for yet (an organization admin who never joined it) is
 * shown after its ungrouped spaces, by id, so positions read consistently before the first move.
 */
export async function querySpaces(
  db: Queryable,
  actor: Actor,
  filter: { spaceId?: number; archived?: boolean; favorite?: boolean; limit?: number; offset?: number },
): Promise<{ items: SpaceDto[]; total: number }> {
  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  const rows = await queryRows<SpaceRecord & { total: number }>(
    db,
    sql`with visible as (
          select s.*, ${orgWide ? sql`'admin'` : sql`sm.role`} as role,
                 us.favorite, us.space_group_id,
                 coalesce(us."order", (row_number() over (partition by us.space_id is null order by s.id) - 1)
                   + (select count(*) from space_user_settings x
                      where x.organization_id = ${actor.organizationId} and x.user_id = ${actor.userId} and x.space_group_id is null))::int as pos
          from spaces s
          left join space_members sm on sm.space_id = s.id and sm.user_id = ${actor.userId}
          left join space_user_settings us on us.space_id = s.id and us.user_id = ${actor.userId}
          where s.organization_id = ${actor.organizationId} ${orgWide ? sql`` : sql`and sm.user_id is not null`}
        )
        select v.id, v.name, v.icon, v.icon_color as "iconColor", v.background, f.key as "customBackgroundKey",
          v.archived_at as "archivedAt", v.intro_reglament_id as "introReglamentId", v.creator_id as "creatorId",
          v.created_at as "createdAt", v.updated_at as "updatedAt",
          (select count(*)::int from space_members c where c.space_id = v.id) as "membersCount",
          v.role, v.favorite, v.space_group_id as "spaceGroupId", v.pos as "order",
          count(*) over ()::int as total
        from visible v
        left join files f on f.id = v.custom_background_file_id
        left join space_groups g on g.id = v.space_group_id
        where true
          ${filter.spaceId !== undefined ? sql`and v.id = ${filter.spaceId}` : sql``}
          ${filter.archived === undefined ? sql`` : filter.archived ? sql`and v.archived_at is not null` : sql`and v.archived_at is null`}
          ${filter.favorite === undefined ? sql`` : sql`and coalesce(v.favorite, false) = ${filter.favorite}`}
        order by g."order" nulls first, g.id nulls first, v.pos, v.id
        limit ${filter.limit ?? 500} offset ${filter.offset ?? 0}`,
  );
  return { items: rows.map(presentSpace), total: rows[0]?.total ?? 0 };
}

export async function listSpaces(ctx: Ctx, filter: { archived?: boolean; favorite?: boolean; limit: number; offset: number }) {
  // Without a filter the list shows active spaces (routes.md: archived? defaults to false).
  return querySpaces(ctx.db, ctx.actor, { ...filter, archived: filter.archived ?? false });
}

export async function loadSpace(db: Queryable, actor: Actor, spaceId: number): Promise<SpaceDto> {
  const { items } = await querySpaces(db, actor, { spaceId });
  if (!items[0]) throw notFound('space');
  return items[0];
}

/** Space(full): the space plus its project, reglament and documentation groups and (admins only) its invite link. */
export async function loadSpaceFull(db: Queryable, actor: Actor, spaceId: number): Promise<SpaceFullDto> {
  const space = await loadSpace(db, actor, spaceId);
  const groups = await db
    .select({ id: projectGroups.id, name: projectGroups.name, order: projectGroups.order })
    .from(projectGroups)
    .where(eq(projectGroups.spaceId, spaceId))
    .orderBy(projectGroups.order, projectGroups.id);
  const inviteLink = space.role === 'admin' ? await loadInviteLink(db, spaceId) : null;
  return {
    ...space,
    projectGroups: groups.map((g) => ({ id: g.id, name: g.name, order: String(g.order) })),
    reglamentGroups: await reglamentGroupRefs(db, spaceId),
    documentationGroups: await documentationGroupRefs(db, spaceId),
    inviteLink,
  };
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
