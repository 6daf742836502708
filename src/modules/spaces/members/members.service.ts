import { and, eq, sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import { spaceMembers, spaceUserSettings } from '../../../db/schema/index.js';
import type { SpaceRole } from '../../../platform/access.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { emit } from '../../../platform/events.js';
import { authorizeMemberRemoval, authorizeSpace } from '../spaces.policy.js';
import { removeSidebarEntry } from '../spaces.sidebar.js';
import { presentSpaceMember, type MemberRecord } from './members.presenter.js';
import type { SpaceMemberDto } from './members.schemas.js';


/** Members of a space (all, or those among `userIds`), oldest first, with the total for paging. */
export async function queryMembers(
  db: Queryable,
  spaceId: number,
  filter: { userIds?: number[]; limit?: number; offset?: number } = {},
): Promise<{ items: SpaceMemberDto[]; total: number }> {
  const rows = await queryRows<MemberRecord & { total: number }>(
    db,
    sql`select sm.id, sm.user_id as "userId", u.name, u.email, f.key as "avatarKey", sm.role,
          sm.created_at as "joinedAt", sm.invited_by_id as "invitedById", count(*) over ()::int as total
        from space_members sm
        join users u on u.id = sm.user_id
        left join files f on f.id = u.avatar_file_id
        where sm.space_id = ${spaceId} ${filter.userIds ? sql`and sm.user_id = any(${idArray(filter.userIds)})` : sql``}
        order by sm.created_at, sm.id
        limit ${filter.limit ?? 10_000} offset ${filter.offset ?? 0}`,
  );
  return { items: rows.map(presentSpaceMember), total: rows[0]?.total ?? 0 };
}

export async function loadMember(db: Queryable, spaceId: number, userId: number): Promise<SpaceMemberDto> {
  const [member] = (await queryMembers(db, spaceId, { userIds: [userId] })).items;
  if (!member) throw notFound('space member');
  return member;
}

export async function listMembers(ctx: Ctx, spaceId: number, page: { limit: number; offset: number }) {
  await authorizeSpace(ctx.db, ctx.actor, spaceId, 'read');
  return queryMembers(ctx.db, spaceId, page);
}

/**
 * Adds users to a space with one role; users already in it keep theirs; answers who was added. Each newcomer gets a
 * sidebar entry at the end of their ungrouped spaces. Callers have checked that every user is an
 * active member of the space's organization.
 */
export async function addSpaceMembers(
  db: Queryable,
  space: { organizationId: number; spaceId: number },
  userIds: number[],
  role: SpaceRole,
  invitedById: number | null,
): Promise<number[]> {
  if (userIds.length === 0) return [];
  const { organizationId, spaceId } = space;
  const ids = idArray(userIds);
  const added = await queryRows<{ userId: number }>(
    db,
    sql`insert into space_members (organization_id, space_id, user_id, role, invited_by_id)
        select ${organizationId}, ${spaceId}, u, ${role}, ${invitedById} from unnest(${ids}) as u
        on conflict (space_id, user_id) do nothing
        returning user_id as "userId"`,
  );
  // The newcomers' ungrouped folders are locked so concurrent appends cannot take the same position.
  await db.execute(sql`select 1 from space_user_settings
    where organization_id = ${organizationId} and user_id = any(${ids}) and space_group_id is null for update`);
  await db.execute(sql`
    insert into space_user_settings (organization_id, space_id, user_id, "order")
    select ${organizationId}, ${spaceId}, u,
           coalesce((select max(x."order") + 1 from space_user_settings x
                     where x.organization_id = ${organizationId} and x.user_id = u and x.space_group_id is null), 0)
    from unnest(${ids}) as u
    on conflict (space_id, user_id) do nothing`);
  return added.map((r) => Number(r.userId));
}

/** space.member.added for the members who joined now (not those who already were in the space). */
export function emitMembersAdded(ctx: { db: Queryable }, spaceId: number, members: SpaceMemberDto[], added: number[], organizationId?: number): void {
  const now = new Set(added);
  for (const member of members) {
    if (now.has(member.userId)) emit(ctx, { type: 'space.member.added', spaceId, payload: member, ...(organizationId === undefined ? {} : { organizationId }) });
  }
}

/** Active members of the organization among `userIds`. */
async function activeOrganizationMembers(db: Queryable, organizationId: number, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await queryRows<{ userId: number }>(
    db,
    sql`select user_id as "userId" from organization_members
        where organization_id = ${organizationId} and active and deleted_at is null and user_id = any(${idArray(userIds)})`,
  );
  return new Set(rows.map((r) => Number(r.userId)));
}

/** Users of the organization (active members) by email, case-insensitively. */
async function organizationUsersByEmail(db: Queryable, organizationId: number, emails: string[]): Promise<Map<string, number>> {
  if (emails.length === 0) return new Map();
  const rows = await queryRows<{ email: string; userId: number }>(
    db,
    sql`select lower(u.email) as email, u.id as "userId" from users u
        join organization_members om on om.user_id = u.id and om.organization_id = ${organizationId} and om.active and om.deleted_at is null
        where lower(u.email) in (${sql.join(emails.map((e) => sql`${e}`), sql`, `)})`,
  );
  return new Map(rows.map((r) => [r.email, Number(r.userId)]));
}

/**
 * Shares a space: organization users (by id or by email) are added at once with the role. Other
 * addresses are not mailed here: they come back in `emailed` (the share route invites them by email
 * when email is on, invitations.service; else the caller passes on the space's invite link, which
 * this call leaves as it is).
 */
export async function shareSpace(
  ctx: Ctx,
  spaceId: number,
  input: { userIds?: number[]; emails?: string[]; role: SpaceRole },
): Promise<{ members: SpaceMemberDto[]; emailed: string[] }> {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'manageMembers');
  const userIds = input.userIds ?? [];
  const emails = [...new Set((input.emails ?? []).map((e) => e.trim().toLowerCase()))];
  if (userIds.length === 0 && emails.length === 0) {
    throw new AppError('VALIDATION_FAILED', 'name at least one user or email', [{ path: '/userIds', message: 'userIds or emails must not be empty' }]);
  }
  const known = await activeOrganizationMembers(db, actor.organizationId, userIds);
  const unknown = userIds.filter((id) => !known.has(id));
  if (unknown.length) {
    throw new AppError(
      'REFERENCE_NOT_FOUND',
      `not active members of the organization: ${unknown.join(', ')}`,
      unknown.map((id) => ({ path: `/userIds/${userIds.indexOf(id)}`, message: 'is not an active member of the organization' })),
    );
  }
  const byEmail = await organizationUsersByEmail(db, actor.organizationId, emails);
  const targets = [...new Set([...userIds, ...byEmail.values()])];
  const added = await addSpaceMembers(db, { organizationId: actor.organizationId, spaceId }, targets, input.role, actor.userId);
  const { items } = await queryMembers(db, spaceId, { userIds: targets });
  emitMembersAdded(ctx, spaceId, items, added);
  return { members: items, emailed: emails.filter((e) => !byEmail.has(e)) };
}

/** The space's memberships, locked, so "the last admin stays" holds against concurrent changes. */
async function lockMembers(db: Queryable, spaceId: number) {
  return db.select({ userId: spaceMembers.userId, role: spaceMembers.role }).from(spaceMembers).where(eq(spaceMembers.spaceId, spaceId)).for('update');
}

function keepAnAdmin(members: Array<{ role: SpaceRole }>, target: { role: SpaceRole }, nextRole: SpaceRole | null): void {
  const admins = members.filter((m) => m.role === 'admin').length;
  if (target.role === 'admin' && nextRole !== 'admin' && admins <= 1) {
    throw new AppError('LAST_SPACE_ADMIN', 'a space keeps at least one admin: make someone else admin first');
  }
}

/** An admin removes a member, or a member leaves; the space always keeps one admin. */
export async function removeSpaceMember(ctx: Ctx, spaceId: number, userId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeMemberRemoval(db, actor, spaceId, userId);
  const members = await lockMembers(db, spaceId);
  const target = members.find((m) => m.userId === userId);
  if (!target) throw notFound('space member');
  keepAnAdmin(members, target, null);
  const [gone] = await db
    .delete(spaceMembers)
    .where(and(eq(spaceMembers.spaceId, spaceId), eq(spaceMembers.userId, userId)))
    .returning({ id: spaceMembers.id });
  emit(ctx, { type: 'space.member.removed', spaceId, payload: { id: gone!.id, userId } });
  await removeSidebarEntry(db, { organizationId: actor.organizationId, userId }, spaceId);
}

export async function setSpaceMemberRole(ctx: Ctx, spaceId: number, userId: number, role: SpaceRole): Promise<SpaceMemberDto> {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'manageMembers');
  const members = await lockMembers(db, spaceId);
  const target = members.find((m) => m.userId === userId);
  if (!target) throw notFound('space member');
  keepAnAdmin(members, target, role);
  await db.update(spaceMembers).set({ role }).where(and(eq(spaceMembers.spaceId, spaceId), eq(spaceMembers.userId, userId)));
  const member = await loadMember(db, spaceId, userId);
  emit(ctx, { type: 'space.member.updated', spaceId, payload: member });
  return member;
}

/**
 * For the organizations module: a user leaving the organization leaves all its spaces and their
 * sidebar entries there. The last-admin rule does not apply: organization owners and admins act as
 * admins of every space, so no space is left unmanaged.
 */
export async function removeUserFromSpaces(ctx: Ctx, userId: number): Promise<void> {
  const { db } = ctx;
  const organizationId = ctx.actor.organizationId;
  const gone = await db
    .delete(spaceMembers)
    .where(and(eq(spaceMembers.organizationId, organizationId), eq(spaceMembers.userId, userId)))
    .returning({ id: spaceMembers.id, spaceId: spaceMembers.spaceId });
  for (const m of gone) emit(ctx, { type: 'space.member.removed', spaceId: m.spaceId, payload: { id: m.id, userId } });
  await db.delete(spaceUserSettings).where(and(eq(spaceUserSettings.organizationId, organizationId), eq(spaceUserSettings.userId, userId)));
}
