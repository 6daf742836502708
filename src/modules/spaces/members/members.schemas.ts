import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../../platform/schemas.js';
import { InvitedRoleSchema, InviteLinkSchema, SpaceRoleSchema } from '../spaces.schemas.js';

export { InviteLinkSchema };

export const SpaceMemberSchema = Type.Object(
  {
    id: Type.Integer({ description: 'membership id' }),
    userId: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    avatar: Nullable(Type.String({ description: 'download link of the avatar' })),
    role: SpaceRoleSchema,
    joinedAt: DateTime(),
    invitedById: Nullable(Type.Integer()),
    createdAt: DateTime('when the membership was created (equals joinedAt)'),
  },
  { $id: 'SpaceMember' },
);
export type SpaceMemberDto = Static<typeof SpaceMemberSchema>;

export const MemberParams = Type.Object({ spaceId: Id(), userId: Id() });

const Email = Type.String({ format: 'email', maxLength: 320 });

export const ShareBody = Type.Object({
  userIds: Type.Optional(Type.Array(Id('an active member of the organization'), { maxItems: 500, uniqueItems: true })),
  emails: Type.Optional(Type.Array(Email, { maxItems: 500, description: 'addresses to invite; organization members among them are added at once' })),
  role: SpaceRoleSchema,
});

export const ShareResult = Type.Object({
  members: Type.Array(SpaceMemberSchema, { description: 'the membership of every user named (added now, or already in the space with their role kept)' }),
  emailed: Type.Array(Type.String(), {
    description: 'addresses of people outside the organization: invited by email when the service sends email (SMTP_URL); else pass them the space invite link',
  }),
});

export const RoleBody = Type.Object({ role: SpaceRoleSchema });
export const InviteRoleBody = Type.Object({ role: InvitedRoleSchema });
export const EnabledBody = Type.Object({ enabled: Type.Boolean() });

export const TokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{16,200}$', description: 'invite link token' }) });

export const JoinDataSchema = Type.Object({
  spaceId: Type.Integer(),
  spaceName: Type.String(),
  organizationName: Nullable(Type.String()),
  role: InvitedRoleSchema,
  enabled: Type.Boolean(),
});
export type JoinDataDto = Static<typeof JoinDataSchema>;
