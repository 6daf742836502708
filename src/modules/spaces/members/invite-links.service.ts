import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import { inviteLinks } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { iso } from '../../../platform/http.js';
import { scopeEvents } from '../../../platform/events.js';
import { addOrganizationMember, emitMemberCreated } from '../../organizations/organizations.service.js';
import { authorizeSpace } from '../spaces.policy.js';
import type { InviteLinkDto } from '../spaces.schemas.js';
import { addSpaceMembers, emitMembersAdded, loadMember } from './members.service.js';
import type { JoinDataDto, SpaceMemberDto } from './members.schemas.js';

type InviteLinkRow = typeof inviteLinks.$inferSelect;
type InvitedRole = 'editor' | 'member' | 'reader';

export function presentInviteLink(row: InviteLinkRow): InviteLinkDto {
  return {
    id: row.id,
    token: row.token,
    url: `/invite-links/${row.token}`,
    role: row.role as InvitedRole,
    enabled: row.enabled,
    createdById: row.createdById,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export async function loadInviteLink(db: Queryable, spaceId: number): Promise<InviteLinkDto | null> {
  const [row] = await db.select().from(inviteLinks).where(eq(inviteLinks.spaceId, spaceId));
  return row ? presentInviteLink(row) : null;
}

/**
 * A new link for the space with the given role, replacing the old one: its token stops working at
 * once. 256 random bits, so a token cannot be guessed. A new link starts enabled.
 */
export async function generateInviteLink(ctx: Ctx, spaceId: number, role: InvitedRole): Promise<InviteLinkDto> {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'manageInviteLink');
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const [row] = await db
    .insert(inviteLinks)
    .values({ organizationId: actor.organizationId, spaceId, token, role, enabled: true, createdById: actor.userId })
    .onConflictDoUpdate({ target: inviteLinks.spaceId, set: { token, role, enabled: true, createdById: actor.userId, createdAt: now, updatedAt: now } })
    .returning();
  return presentInviteLink(row!);
}

async function updateInviteLink(ctx: Ctx, spaceId: number, change: { enabled?: boolean; role?: InvitedRole }): Promise<InviteLinkDto> {
  await authorizeSpace(ctx.db, ctx.actor, spaceId, 'manageInviteLink');
  const [row] = await ctx.db
    .update(inviteLinks)
    .set({ ...change, updatedAt: new Date() })
    .where(and(eq(inviteLinks.spaceId, spaceId), eq(inviteLinks.organizationId, ctx.actor.organizationId)))
    .returning();
  if (!row) throw notFound('invite link');
  return presentInviteLink(row);
}

export const setInviteLinkEnabled = (ctx: Ctx, spaceId: number, enabled: boolean) => updateInviteLink(ctx, spaceId, { enabled });
export const setInviteLinkRole = (ctx: Ctx, spaceId: number, role: InvitedRole) => updateInviteLink(ctx, spaceId, { role });

interface LinkTarget {
  spaceId: number;
  spaceName: string;
  organizationId: number;
  organizationName: string | null;
  role: InvitedRole;
  enabled: boolean;
  createdById: number | null;
}

async function findLink(db: Queryable, token: string, lock: boolean): Promise<LinkTarget> {
  const [row] = await queryRows<LinkTarget>(
    db,
    sql`select l.space_id as "spaceId", s.name as "spaceName", l.organization_id as "organizationId", o.name as "organizationName",
          l.role, l.enabled, l.created_by_id as "createdById"
        from invite_links l
        join spaces s on s.id = l.space_id
        join organizations o on o.id = l.organization_id
        where l.token = ${token} ${lock ? sql`for update of l` : sql``}`,
  );
  if (!row) throw notFound('invite link');
  return row;
}

/** What a link leads to, for the page a visitor sees before signing in (public). */
export async function inviteLinkData(db: Queryable, token: string): Promise<JoinDataDto> {
  const link = await findLink(db, token, false);
  return {
    spaceId: Number(link.spaceId),
    spaceName: link.spaceName,
    organizationName: link.organizationName,
    role: link.role,
    enabled: link.enabled,
  };
}

/**
 * The user joins the organization when not in it yet (taking a licence seat: 400 NO_FREE_SEATS) and
 * the space with `role` (a user already in the space keeps theirs), and each join is announced in
 * the organization's events. Shared by the invite link and the emailed invitation.
 */
export async function joinOrganizationAndSpace(
  db: Queryable,
  target: { organizationId: number; spaceId: number; role: SpaceMemberDto['role']; invitedById: number | null },
  userId: number,
): Promise<SpaceMemberDto> {
  const { organizationId, spaceId } = target;
  const joinedOrganization = await addOrganizationMember(db, organizationId, userId);
  const added = await addSpaceMembers(db, { organizationId, spaceId }, [userId], target.role, target.invitedById);
  const member = await loadMember(db, spaceId, userId);
  if (joinedOrganization) await emitMemberCreated({ db }, organizationId, userId);
  emitMembersAdded({ db }, spaceId, [member], added, organizationId);
  return member;
}

/**
 * Joins the link's space with the link's role, and its organization (see joinOrganizationAndSpace).
 * `registering`: the user was just made, so nothing has scoped the events yet: the new user acted,
 * in the link's organization, announced like a signed-in join.
 */
async function joinByToken(db: Queryable, userId: number, token: string, registering = false): Promise<{ organizationId: number; member: SpaceMemberDto }> {
  const link = await findLink(db, token, true);
  if (!link.enabled) throw new AppError('LINK_DISABLED', 'this invite link is disabled');
  const organizationId = Number(link.organizationId);
  if (registering) scopeEvents(db, organizationId, userId);
  const target = { organizationId, spaceId: Number(link.spaceId), role: link.role, invitedById: link.createdById };
  return { organizationId, member: await joinOrganizationAndSpace(db, target, userId) };
}

/** A signed-in user joins by link; their active organization stays as it is (the link's organization, which need not be it, is where this happened). */
export async function joinByLink(ctx: Ctx, token: string): Promise<SpaceMemberDto> {
  return (await joinByToken(ctx.db, ctx.actor.userId, token)).member;
}

/** Registration with an invite token (plugged into auth's joinHooks): the new user joins the link's organization and space. */
export async function joinByInviteOnRegister(db: Queryable, userId: number, token: string): Promise<{ organizationId: number }> {
  return { organizationId: (await joinByToken(db, userId, token, true)).organizationId };
}
