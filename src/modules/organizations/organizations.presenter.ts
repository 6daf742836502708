import type { organizationMembers, organizations, subscriptions } from '../../db/schema/index.js';
import { INVITED_PASSWORD_HASH } from '../../db/schema/users.js';
import { iso } from '../../platform/http.js';
import type { OrgRole } from '../../platform/auth.js';
import type { UserRow } from '../users/users.presenter.js';
import { fileLink } from '../files/files.presenter.js';
import type { MemberDto, OrganizationDto } from './organizations.schemas.js';

type MemberRow = typeof organizationMembers.$inferSelect;
type OrgRow = typeof organizations.$inferSelect;
type SubscriptionRow = typeof subscriptions.$inferSelect;

export function presentMember(member: MemberRow, user: UserRow, avatarKey: string | null, messengerConnected: boolean): MemberDto {
  return {
    id: member.id,
    userId: user.id,
    name: user.name,
    email: user.email,
    avatar: avatarKey ? fileLink(avatarKey) : null,
    phoneNumber: user.phoneNumber,
    messengerLink: user.messengerLink,
    messengerConnected,
    jobTitle: user.jobTitle,
    codeHostLink: user.codeHostLink,
    birthDate: iso(user.birthDate),
    lastActivityDate: iso(member.lastActivityAt),
    deleted: member.deletedAt !== null,
    active: member.active && member.deletedAt === null,
    role: member.role,
    pending: user.passwordHash === INVITED_PASSWORD_HASH ? 'unclaimed' : null,
  };
}

export function presentOrganization(input: {
  org: OrgRow;
  avatar: string | null;
  subscription: SubscriptionRow;
  members: MemberDto[];
  uniqueSpaceUsersCount: number;
  role: OrgRole;
}): OrganizationDto {
  const { org, subscription: s, members } = input;
  return {
    members,
    activeOrganizationUsersCount: members.filter((m) => m.active).length,
    uniqueSpaceUsersCount: input.uniqueSpaceUsersCount,
    id: org.id,
    name: org.name,
    avatar: input.avatar,
    ownerId: org.ownerId,
    createdAt: iso(org.createdAt)!,
    updatedAt: iso(org.updatedAt)!,
    availableUsersCount: org.availableUsersCount,
    licenseEndDate: iso(org.licenseEndDate)!,
    trialEndDate: iso(org.trialEndDate)!,
    subscription: {
      id: s.id,
      active: s.active,
      price: Number(s.price),
      usersCount: s.usersCount,
      interval: s.interval,
      datePay: iso(s.datePay),
    },
    aiEnabled: org.aiEnabled,
    role: input.role,
  };
}
