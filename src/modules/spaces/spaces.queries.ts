import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { notFound } from '../../platform/errors.js';
import { loadInviteLink } from './members/invite-links.service.js';
import { presentSpace, type SpaceRecord } from './spaces.presenter.js';
import type { SpaceDto, SpaceFullDto } from './spaces.schemas.js';

// Reads of spaces, apart from the service that writes them: spaces.events.ts loads Space(full)
// through these, and the service emits through spaces.events.ts.

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

export async function loadSpace(db: Queryable, actor: Actor, spaceId: number): Promise<SpaceDto> {
  const { items } = await querySpaces(db, actor, { spaceId });
  if (!items[0]) throw notFound('space');
  return items[0];
}

type GroupRef = { id: number; name: string; order: string };

// One statement for the three lists of a space's groups (project, reglament, documentation), each
// {id, name, order} by position.
const groupRefs = (table: string) =>
  sql`(select coalesce(json_agg(json_build_object('id', g.id, 'name', g.name, 'order', g."order"::text) order by g."order", g.id), '[]')
       from ${sql.identifier(table)} g where g.space_id = s.id)`;

/** Space(full): the space plus its project, reglament and documentation groups and (admins only) its invite link. */
export async function loadSpaceFull(db: Queryable, actor: Actor, spaceId: number): Promise<SpaceFullDto> {
  const space = await loadSpace(db, actor, spaceId);
  const [groups] = await queryRows<{ projectGroups: GroupRef[]; reglamentGroups: GroupRef[]; documentationGroups: GroupRef[] }>(
    db,
    sql`select ${groupRefs('project_groups')} as "projectGroups", ${groupRefs('reglament_groups')} as "reglamentGroups",
          ${groupRefs('documentation_groups')} as "documentationGroups"
        from spaces s where s.id = ${spaceId}`,
    { prepare: 'space-groups' },
  );
  const inviteLink = space.role === 'admin' ? await loadInviteLink(db, spaceId) : null;
  return { ...space, ...groups!, inviteLink };
}
