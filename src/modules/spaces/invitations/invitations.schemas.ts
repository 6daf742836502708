import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, Nullable } from '../../../platform/schemas.js';
import { InvitedRoleSchema } from '../spaces.schemas.js';
import { RegisterResult } from '../../auth/auth.schemas.js';

export const INVITATION_STATES = ['pending', 'expired', 'revoked', 'accepted'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];
const State = Type.Unsafe<InvitationState>({
  type: 'string',
  enum: [...INVITATION_STATES],
  description: 'pending (the link works); expired (7 days passed: resend it); revoked; accepted',
});

export const InvitationEmail = Type.String({ format: 'email', maxLength: 320, description: 'the address invited' });

export const InvitationSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer(),
    email: Type.String({ description: 'the address invited, lower-cased' }),
    role: InvitedRoleSchema,
    state: State,
    invitedById: Nullable(Type.Integer()),
    expiresAt: DateTime('when the emailed link stops working'),
    sentAt: DateTime('when the link was last emailed (created or resent)'),
    createdAt: DateTime(),
  },
  { $id: 'SpaceInvitation' },
);
export type InvitationDto = Static<typeof InvitationSchema>;

export const InvitationParams = Type.Object({ spaceId: Id(), invitationId: Id() });

export const CreateInvitationBody = Type.Object({
  email: InvitationEmail,
  role: InvitedRoleSchema,
});

export const InvitationTokenParams = Type.Object({
  token: Type.String({ pattern: '^[A-Za-z0-9_-]{16,200}$', description: 'the token of the emailed invitation link' }),
});

/** What an invitation link leads to, for the page shown before signing in. */
export const InvitationLookupSchema = Type.Object(
  {
    spaceId: Type.Integer(),
    spaceName: Type.String(),
    organizationName: Nullable(Type.String()),
    role: InvitedRoleSchema,
    email: Type.String({ description: 'the address invited: only the account with this address can accept' }),
    state: State,
    expiresAt: DateTime(),
    accountExists: Type.Boolean({ description: 'an account with this address exists: sign in to accept; else create one (POST /invitations/{token}/register)' }),
  },
  { $id: 'InvitationLookup' },
);
export type InvitationLookupDto = Static<typeof InvitationLookupSchema>;

export const InvitationRegisterBody = Type.Object({
  name: Name('your name'),
  password: Type.String({ minLength: 8, maxLength: 200, description: 'the new account’s password' }),
});

/** The register answer's form: a session, the user, and the invitation's organization as the active one. */
export const InvitationRegisterResult = RegisterResult;
