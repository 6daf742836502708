import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id, Name, Nullable } from '../../platform/schemas.js';

export const OrgRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);

export const MemberSchema = Type.Object(
  {
    id: Type.Integer({ description: 'membership id' }),
    userId: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    avatar: Nullable(Type.String()),
    phoneNumber: Nullable(Type.String()),
    messengerLink: Nullable(Type.String()),
    messengerConnected: Type.Boolean({ description: 'a messenger chat gets this member’s notifications (added; never which chat)' }),
    jobTitle: Nullable(Type.String()),
    codeHostLink: Nullable(Type.String()),
    birthDate: Nullable(DateTime()),
    lastActivityDate: Nullable(DateTime()),
    deleted: Type.Boolean({ description: 'removed from the organization (kept so old tasks can name them)' }),
    active: Type.Boolean({ description: 'false when deactivated' }),
    role: OrgRoleSchema,
    pending: Nullable(
      Type.Literal('unclaimed', {
        description:
          'added: why this member cannot sign in yet; `unclaimed`: the account was made by an organization import and its person has not set a password from the emailed claim link. null for everyone else',
      }),
    ),
  },
  { $id: 'Member' },
);
export type MemberDto = Static<typeof MemberSchema>;

export const SubscriptionSchema = Type.Object(
  {
    id: Type.Integer(),
    active: Type.Boolean(),
    price: Type.Number(),
    usersCount: Type.Integer(),
    interval: Type.Integer({ description: 'billing interval in months' }),
    datePay: Nullable(DateTime()),
  },
  { $id: 'Subscription' },
);

export const OrganizationSchema = Type.Object(
  {
    members: Type.Array(MemberSchema),
    activeOrganizationUsersCount: Type.Integer(),
    uniqueSpaceUsersCount: Type.Integer(),
    id: Type.Integer(),
    name: Nullable(Type.String()),
    avatar: Nullable(Type.String()),
    ownerId: Type.Integer(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    availableUsersCount: Type.Integer(),
    licenseEndDate: DateTime(),
    trialEndDate: DateTime(),
    subscription: SubscriptionSchema,
    aiEnabled: Type.Boolean(),
    role: OrgRoleSchema,
  },
  { $id: 'Organization' },
);
export type OrganizationDto = Static<typeof OrganizationSchema>;

export const OrganizationListItem = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    avatar: Nullable(Type.String()),
    role: OrgRoleSchema,
    active: Type.Boolean({ description: "true for the caller's active organization" }),
  },
  { $id: 'OrganizationListItem' },
);

export const CountsSchema = Type.Object(
  {
    spaces: Type.Integer(),
    projects: Type.Integer(),
    tasks: Type.Integer(),
    archivedTasks: Type.Integer(),
    reglaments: Type.Integer(),
    pages: Type.Integer(),
    members: Type.Integer(),
    activeMembers: Type.Integer(),
  },
  { $id: 'OrganizationCounts' },
);

export const ActivityQuery = Type.Object({
  dateFrom: DateOnly('first day, inclusive'),
  dateTo: DateOnly('last day, inclusive'),
  userId: Type.Optional(Id('only this member')),
});
export const ActivityRow = Type.Object(
  {
    userId: Type.Integer(),
    lastActivityDate: Nullable(DateTime()),
    activeDays: Type.Integer(),
    tasksCreated: Type.Integer(),
    tasksFinished: Type.Integer(),
    messages: Type.Integer(),
    factTime: Type.Number({ description: 'hours recorded' }),
  },
  { $id: 'MemberActivity' },
);

export const CreateBody = Type.Object({ name: Name() });
export const RenameBody = Type.Object({ name: Name() });
export const ActiveOrgBody = Type.Object({ organizationId: Id() });
export const OwnerBody = Type.Object({ ownerId: Id('user id of the new owner') });
export const MemberRoleBody = Type.Object({ role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) });
export const MemberActiveBody = Type.Object({ active: Type.Boolean() });
export const AiEnabledBody = Type.Object({ aiEnabled: Type.Boolean() });
export const UserIdParams = Type.Object({ userId: Id() });
