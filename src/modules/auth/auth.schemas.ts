import { Type } from 'typebox';
import { DateTime, Name, Nullable } from '../../platform/schemas.js';
import { UserSchema } from '../users/users.schemas.js';
import { OrganizationSchema } from '../organizations/organizations.schemas.js';

const Email = Type.String({ format: 'email', maxLength: 320 });

export const RegisterBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: 8, maxLength: 200 }),
  name: Name(),
  inviteToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'join the invite link’s organization and space instead of creating one' })),
  referralCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'partner link code (the `ref` of a partner URL); an unknown code is ignored' })),
});
export const LoginBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) });

export const RegisterResult = Type.Object({ session: Type.String(), user: UserSchema, organization: OrganizationSchema });
export const LoginResult = Type.Object({ session: Type.String(), user: UserSchema });

const TokenScope = Type.Union([Type.Literal('read'), Type.Literal('read-write')], {
  default: 'read-write',
  description: '`read`: reads only (write routes answer 403 TOKEN_READ_ONLY, write tools a tool error); `read-write`: whatever the user may do',
});

export const ApiTokenSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String({ description: 'first characters of the token, to recognise it' }),
    organizationId: Type.Integer(),
    lastUsedAt: Nullable(DateTime()),
    expiresAt: Nullable(DateTime()),
    createdAt: DateTime(),
    scope: TokenScope,
  },
  { $id: 'ApiToken' },
);
export const CreatedApiTokenSchema = Type.Object(
  {
    ...ApiTokenSchema.properties,
    token: Type.String({ description: 'the secret, shown only in this response' }),
  },
  { $id: 'CreatedApiToken' },
);
export const CreateApiTokenBody = Type.Object({
  name: Name(),
  expiresAt: Type.Optional(Nullable(DateTime())),
  scope: Type.Optional(TokenScope),
});
