import { and, asc, count, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { queryRows, type Queryable } from '../../db/client.js';
import { apiTokens, files, organizationMembers, organizations, subscriptions, users } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import type { FileStore } from '../../platform/files.js';
import type { OrgRole } from '../../platform/auth.js';
import { deleteFiles, recordFile, type ReceivedFile } from '../files/files.service.js';
import { fileLink } from '../files/files.presenter.js';
import { removeUserFromSpaces } from '../spaces/members/members.service.js';
import { authorizeOrganization } from './organizations.policy.js';
import { messengerConnectedOf } from '../messenger/messenger.presenter.js';
import { presentMember, presentOrganization } from './organizations.presenter.js';
import type { MemberDto, OrganizationDto } from './organizations.schemas.js';

const orgAvatar = alias(files, 'org_avatar');
const userAvatar = alias(files, 'user_avatar');

export interface Licensing {
  trialDays: number;
  trialUsers: number;
}

/** Creates an organization on a trial licence with its owner as the first member. */
export async function createOrganization(db: Queryable, ownerId: number, name: string | null, licensing: Licensing): Promise<number> {
  const trialEnd = new Date(Date.now() + licensing.trialDays * 86_400_000);
  const [org] = await db
    .insert(organizations)
    .values({ name, ownerId, availableUsersCount: licensing.trialUsers, licenseEndDate: trialEnd, trialEndDate: trialEnd })
    .returning({ id: organizations.id });
  await db.insert(subscriptions).values({ organizationId: org!.id, active: false, price: 0, usersCount: licensing.trialUsers, interval: 1 });
  await db.insert(organizationMembers).values({ organizationId: org!.id, userId: ownerId, role: 'owner' });
  return org!.id;
}

const memberRows = (db: Queryable, where: SQL | undefined) =>
  db
    .select({ member: organizationMembers, user: users, avatarKey: userAvatar.key, messengerConnected: messengerConnectedOf(users.id) })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .leftJoin(userAvatar, eq(userAvatar.id, users.avatarFileId))
    .where(where)
    .orderBy(asc(organizationMembers.id));

async function loadMembers(db: Queryable, organizationId: number, userId?: number): Promise<MemberDto[]> {
  const rows = await memberRows(db, and(eq(organizationMembers.organizationId, organizationId), userId ? eq(organizationMembers.userId, userId) : undefined));
  return rows.map((r) => presentMember(r.member, r.user, r.avatarKey, r.messengerConnected));
}

/**
 * A user changed their own profile (name, avatar, contacts): every organization they belong to
 * shows it in its member list, so each hears organization.member.updated, in the change's transaction.
 */
export async function announceProfileChange(ctx: Ctx): Promise<void> {
  const rows = await memberRows(ctx.db, and(eq(organizationMembers.userId, ctx.actor.userId), isNull(organizationMembers.deletedAt)));
  for (const r of rows) {
    emit(ctx, { type: 'organization.member.updated', organizationId: r.member.organizationId, payload: presentMember(r.member, r.user, r.avatarKey, r.messengerConnected) });
  }
}

/** The spec's Organization form for one viewer, in three queries whatever the member count. */
export async function loadOrganization(db: Queryable, organizationId: number, viewerId: number): Promise<OrganizationDto> {
  const [row] = await db
    .select({ org: organizations, avatarKey: orgAvatar.key, subscription: subscriptions })
    .from(organizations)
    .leftJoin(orgAvatar, eq(orgAvatar.id, organizations.avatarFileId))
    .innerJoin(subscriptions, eq(subscriptions.organizationId, organizations.id))
    .where(eq(organizations.id, organizationId))
    .orderBy(asc(subscriptions.id))
    .limit(1);
  if (!row) throw notFound('organization');
  const members = await loadMembers(db, organizationId);
  const spaceUsers = await queryRows<{ count: number }>(db, sql`
    select count(distinct sm.user_id)::int as count from space_members sm
    join organization_members om on om.organization_id = sm.organization_id and om.user_id = sm.user_id
    where sm.organization_id = ${organizationId} and om.deleted_at is null`);
  const viewer = members.find((m) => m.userId === viewerId);
  if (!viewer) throw notFound('organization');
  return presentOrganization({
    org: row.org,
    avatar: row.avatarKey ? fileLink(row.avatarKey) : null,
    subscription: row.subscription,
    members,
    uniqueSpaceUsersCount: Number(spaceUsers[0]?.count ?? 0),
    role: viewer.role,
  });
}

/** The organization as the actor reads it, announced to its members. */
async function loadAndEmit(ctx: Ctx): Promise<OrganizationDto> {
  const organization = await loadOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId);
  emit(ctx, { type: 'organization.updated', payload: organization });
  return organization;
}

/** A user became a member of an organization (not necessarily the actor's active one). */
export async function emitMemberCreated(ctx: { db: Queryable }, organizationId: number, userId: number): Promise<void> {
  const [member] = await loadMembers(ctx.db, organizationId, userId);
  emit(ctx, { type: 'organization.member.created', organizationId, payload: member });
}

export async function listOrganizations(db: Queryable, userId: number, activeId: number, page: { limit: number; offset: number }) {
  const mine = and(eq(organizationMembers.userId, userId), eq(organizationMembers.active, true), isNull(organizationMembers.deletedAt));
  const [total] = await db.select({ n: count() }).from(organizationMembers).where(mine);
  const rows = await db
    .select({ id: organizations.id, name: organizations.name, avatarKey: orgAvatar.key, role: organizationMembers.role })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .leftJoin(orgAvatar, eq(orgAvatar.id, organizations.avatarFileId))
    .where(mine)
    .orderBy(asc(organizations.id))
    .limit(page.limit)
    .offset(page.offset);
  return {
    total: Number(total?.n ?? 0),
    items: rows.map((r) => ({ id: r.id, name: r.name, avatar: r.avatarKey ? fileLink(r.avatarKey) : null, role: r.role, active: r.id === activeId })),
  };
}

export async function createAndSwitch(ctx: Ctx, name: string, licensing: Licensing): Promise<OrganizationDto> {
  const id = await createOrganization(ctx.db, ctx.actor.userId, name.trim(), licensing);
  await ctx.db.update(users).set({ activeOrganizationId: id }).where(eq(users.id, ctx.actor.userId));
  return loadOrganization(ctx.db, id, ctx.actor.userId);
}

export async function renameOrganization(ctx: Ctx, name: string): Promise<OrganizationDto> {
  authorizeOrganization(ctx.actor, 'rename');
  await ctx.db.update(organizations).set({ name: name.trim(), updatedAt: new Date() }).where(eq(organizations.id, ctx.actor.organizationId));
  return loadAndEmit(ctx);
}

export async function setAiEnabled(ctx: Ctx, aiEnabled: boolean): Promise<OrganizationDto> {
  authorizeOrganization(ctx.actor, 'setAiEnabled');
  await ctx.db.update(organizations).set({ aiEnabled, updatedAt: new Date() }).where(eq(organizations.id, ctx.actor.organizationId));
  return loadAndEmit(ctx);
}

export async function changeOrganizationAvatar(ctx: Ctx, store: FileStore, received: ReceivedFile): Promise<OrganizationDto> {
  authorizeOrganization(ctx.actor, 'changeAvatar');
  const orgId = ctx.actor.organizationId;
  const [current] = await ctx.db.select({ fileId: organizations.avatarFileId }).from(organizations).where(eq(organizations.id, orgId)).for('update');
  const file = await recordFile(ctx, store, received, { purpose: 'organization-avatar', organizationId: orgId });
  await ctx.db.update(organizations).set({ avatarFileId: file.id, updatedAt: new Date() }).where(eq(organizations.id, orgId));
  if (current?.fileId) await deleteFiles(ctx, store, [current.fileId]);
  return loadAndEmit(ctx);
}

/** Active organization switch: only to one where the caller is an active member (else 404). */
export async function switchActiveOrganization(ctx: Ctx, organizationId: number): Promise<OrganizationDto> {
  const [m] = await ctx.db
    .select({ id: organizationMembers.id })
    .from(organizationMembers)
    .where(
      and(
        eq(organizationMembers.organizationId, organizationId),
        eq(organizationMembers.userId, ctx.actor.userId),
        eq(organizationMembers.active, true),
        isNull(organizationMembers.deletedAt),
      ),
    );
  if (!m) throw notFound('organization');
  await ctx.db.update(users).set({ activeOrganizationId: organizationId }).where(eq(users.id, ctx.actor.userId));
  return loadOrganization(ctx.db, organizationId, ctx.actor.userId);
}

async function lockMember(ctx: Ctx, userId: number) {
  const [m] = await ctx.db
    .select()
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, ctx.actor.organizationId), eq(organizationMembers.userId, userId), isNull(organizationMembers.deletedAt)))
    .for('update');
  if (!m) throw notFound('member');
  return m;
}

export async function changeOwner(ctx: Ctx, newOwnerId: number): Promise<OrganizationDto> {
  authorizeOrganization(ctx.actor, 'transferOwnership');
  const target = await lockMember(ctx, newOwnerId);
  if (!target.active) throw new AppError('VALIDATION_FAILED', 'the new owner must be an active member', [{ path: '/ownerId', message: 'is deactivated' }]);
  const orgId = ctx.actor.organizationId;
  if (newOwnerId !== ctx.actor.userId) {
    await ctx.db.update(organizationMembers).set({ role: 'admin' }).where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.role, 'owner')));
    await ctx.db.update(organizationMembers).set({ role: 'owner' }).where(eq(organizationMembers.id, target.id));
    await ctx.db.update(organizations).set({ ownerId: newOwnerId, updatedAt: new Date() }).where(eq(organizations.id, orgId));
    return loadAndEmit(ctx);
  }
  return loadOrganization(ctx.db, orgId, ctx.actor.userId);
}

function protectOwner(role: OrgRole): void {
  if (role === 'owner') throw new AppError('OWNER_PROTECTED', 'the owner cannot be changed this way; transfer ownership first');
}

async function revokeOrganizationTokens(ctx: Ctx, userId: number): Promise<void> {
  await ctx.db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.organizationId, ctx.actor.organizationId), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)));
}

/**
 * Removes a member: their membership is marked deleted (so history keeps their name), their space
 * memberships go, and their API tokens for this organization are revoked. Sessions stop working
 * for this organization at once because authentication checks the membership on every request.
 */
export async function removeMember(ctx: Ctx, userId: number): Promise<void> {
  authorizeOrganization(ctx.actor, 'manageMembers');
  const m = await lockMember(ctx, userId);
  protectOwner(m.role);
  await ctx.db.update(organizationMembers).set({ deletedAt: new Date(), active: false }).where(eq(organizationMembers.id, m.id));
  emit(ctx, { type: 'organization.member.deleted', payload: { id: m.id, userId } });
  await removeUserFromSpaces(ctx, userId);
  await revokeOrganizationTokens(ctx, userId);
}

export async function setMemberRole(ctx: Ctx, userId: number, role: 'admin' | 'member'): Promise<MemberDto> {
  authorizeOrganization(ctx.actor, 'manageMembers');
  const m = await lockMember(ctx, userId);
  protectOwner(m.role);
  await ctx.db.update(organizationMembers).set({ role }).where(eq(organizationMembers.id, m.id));
  return loadMemberAndEmit(ctx, userId);
}

export async function setMemberActive(ctx: Ctx, userId: number, active: boolean): Promise<MemberDto> {
  authorizeOrganization(ctx.actor, 'manageMembers');
  const m = await lockMember(ctx, userId);
  protectOwner(m.role);
  if (active && !m.active) await ensureFreeSeat(ctx.db, ctx.actor.organizationId);
  await ctx.db.update(organizationMembers).set({ active }).where(eq(organizationMembers.id, m.id));
  if (!active) await revokeOrganizationTokens(ctx, userId);
  return loadMemberAndEmit(ctx, userId);
}

async function loadMemberAndEmit(ctx: Ctx, userId: number): Promise<MemberDto> {
  const member = (await loadMembers(ctx.db, ctx.actor.organizationId, userId))[0]!;
  emit(ctx, { type: 'organization.member.updated', payload: member });
  return member;
}

/**
 * Throws 400 NO_FREE_SEATS when the licence has no seat left. Locks the organization row so two
 * concurrent joins cannot both take the last seat.
 */
export async function ensureFreeSeat(db: Queryable, organizationId: number): Promise<void> {
  const [org] = await db
    .select({ seats: organizations.availableUsersCount })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .for('update');
  const [used] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.active, true), isNull(organizationMembers.deletedAt)));
  if (!org || Number(used?.count ?? 0) >= org.seats) throw new AppError('NO_FREE_SEATS', 'the licence has no free seat left');
}

/**
 * Adds a user to an organization (or brings a removed one back), taking a seat.
 * Returns false when the user already is an active member.
 */
export async function addOrganizationMember(db: Queryable, organizationId: number, userId: number): Promise<boolean> {
  const [existing] = await db
    .select()
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
    .for('update');
  if (existing && existing.active && !existing.deletedAt) return false;
  if (existing && !existing.active && !existing.deletedAt) {
    throw new AppError('MEMBER_DEACTIVATED', 'the user is deactivated in this organization; an admin must reactivate them');
  }
  await ensureFreeSeat(db, organizationId);
  if (existing) {
    await db.update(organizationMembers).set({ active: true, deletedAt: null, role: 'member', joinedAt: new Date() }).where(eq(organizationMembers.id, existing.id));
  } else {
    await db.insert(organizationMembers).values({ organizationId, userId, role: 'member' });
  }
  return true;
}

/** Is the user an active member of the organization (for checks by other modules). */
export async function isActiveMember(db: Queryable, organizationId: number, userId: number): Promise<boolean> {
  const [m] = await db
    .select({ id: organizationMembers.id })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId), eq(organizationMembers.active, true), isNull(organizationMembers.deletedAt)));
  return Boolean(m);
}
