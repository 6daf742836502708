import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { projectGroups, spaceGroups, spaceMembers, spaceUserSettings, spaces } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { authorizeSpace } from './spaces.policy.js';
import { presentSpace, type SpaceRecord } from './spaces.presenter.js';
import type { SpaceDto, SpaceFullDto } from './spaces.schemas.js';
import { loadInviteLink } from './members/invite-links.service.js';

/**
 * Spaces as one caller sees them: its role (organization owners/admins see every space as admin),
 * its own order, favourite flag and folder, and the member count — one query for any number.
 */
export async function querySpaces(
  db: Queryable,
  actor: Actor,
  filter: { spaceId?: number; archived?: boolean; favorite?: boolean; limit?: number; offset?: number },
): Promise<{ items: SpaceDto[]; total: number }> {
  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  const rows = await queryRows<SpaceRecord & { total: number }>(
    db,
    sql`select s.id, s.name, s.icon, s.icon_color as "iconColor", s.background, f.key as "customBackgroundKey",
          s.archived_at as "archivedAt", s.intro_reglament_id as "introReglamentId", s.creator_id as "creatorId",
          s.created_at as "createdAt", s.updated_at as "updatedAt",
          (select count(*)::int from space_members c where c.space_id = s.id) as "membersCount",
          ${orgWide ? sql`'admin'` : sql`sm.role`} as role,
          us.favorite, us."order", us.space_group_id as "spaceGroupId",
          count(*) over ()::int as total
        from spaces s
        left join space_members sm on sm.space_id = s.id and sm.user_id = ${actor.userId}
        left join space_user_settings us on us.space_id = s.id and us.user_id = ${actor.userId}
        left join files f on f.id = s.custom_background_file_id
        where s.organization_id = ${actor.organizationId}
          ${orgWide ? sql`` : sql`and sm.user_id is not null`}
          ${filter.spaceId !== undefined ? sql`and s.id = ${filter.spaceId}` : sql``}
          ${filter.archived === undefined ? sql`` : filter.archived ? sql`and s.archived_at is not null` : sql`and s.archived_at is null`}
          ${filter.favorite === undefined ? sql`` : sql`and coalesce(us.favorite, false) = ${filter.favorite}`}
        order by coalesce(us."order", 2147483647), s.id
        limit ${filter.limit ?? 500} offset ${filter.offset ?? 0}`,
  );
  return { items: rows.map(presentSpace), total: rows[0]?.total ?? 0 };
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
    // Reglament and documentation groups arrive with their modules; until then a space has none.
    reglamentGroups: [],
    documentationGroups: [],
    inviteLink,
  };
}

async function nextUserOrder(db: Queryable, userId: number): Promise<number> {
  const [row] = await db
    .select({ next: sql<number>`coalesce(max(${spaceUserSettings.order}) + 1, 0)::int` })
    .from(spaceUserSettings)
    .where(eq(spaceUserSettings.userId, userId));
  return Number(row?.next ?? 0);
}

async function ownGroup(db: Queryable, actor: Actor, groupId: number): Promise<void> {
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
  if (input.spaceGroupId) await ownGroup(db, actor, input.spaceGroupId);
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
  await db.insert(spaceUserSettings).values({
    organizationId: actor.organizationId,
    spaceId,
    userId: actor.userId,
    order: await nextUserOrder(db, actor.userId),
    spaceGroupId: input.spaceGroupId ?? null,
  });
  return loadSpaceFull(db, actor, spaceId);
}

export async function getSpace(ctx: Ctx, spaceId: number): Promise<SpaceFullDto> {
  await authorizeSpace(ctx.db, ctx.actor, spaceId, 'read');
  return loadSpaceFull(ctx.db, ctx.actor, spaceId);
}
