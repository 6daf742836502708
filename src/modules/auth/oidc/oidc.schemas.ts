import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../../platform/schemas.js';

export const OidcStatusSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'single sign-on is configured: show the button' }),
    displayName: Nullable(Type.String({ description: 'the provider’s name for "Sign in with <name>"; null while single sign-on is off' })),
    passwordSignIn: Type.Boolean({ description: 'false under OIDC_ONLY: password sign-in and registration are for operators only' }),
  },
  { $id: 'OidcStatus' },
);

export const OidcAuthorizationSchema = Type.Object(
  {
    url: Type.String({ description: 'the provider’s authorization URL (code flow, PKCE S256, state, nonce): open it in this browser' }),
    transaction: Type.String({ description: 'the sign-in in flight, sealed: keep it in this browser (session storage) and send it with the callback' }),
    expiresAt: DateTime('the sign-in must complete before this'),
  },
  { $id: 'OidcAuthorization' },
);

const Param = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const OidcCallbackBody = Type.Object({
  transaction: Param('the `transaction` GET /auth/oidc/authorization-url gave this browser'),
  code: Param('`code` of the provider’s redirect'),
  state: Param('`state` of the provider’s redirect'),
  iss: Type.Optional(Param('`iss` of the provider’s redirect, when it sends one (RFC 9207)')),
});
export type OidcCallbackInput = Static<typeof OidcCallbackBody>;

export const OidcSignOutSchema = Type.Object(
  {
    endSessionUrl: Nullable(Type.String({ description: 'send the browser here to end the provider’s session too; null when the provider offers no end-session endpoint' })),
  },
  { $id: 'OidcSignOut' },
);
