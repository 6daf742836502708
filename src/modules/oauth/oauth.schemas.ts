import { Type, type Static } from 'typebox';

const Scope = Type.Union([Type.Literal('tasks:read'), Type.Literal('tasks:write'), Type.Literal('docs:read')], {
  description: '`tasks:read` read tasks, boards and notifications; `tasks:write` create, change, move and comment on tasks; `docs:read` read documentation, reglaments and ask the assistant',
});

/** A grant id as oidc-provider makes them (URL-safe random); anything else is 400. */
export const GrantParams = Type.Object({ grantId: Type.String({ pattern: '^[A-Za-z0-9_-]{10,64}$', description: 'the connected app (its grant)' }) });

export const InteractionParams = Type.Object({ uid: Type.String({ pattern: '^[A-Za-z0-9_-]{10,64}$', description: 'the sign-in request, from the consent page address' }) });

const ClientSchema = Type.Object({
  id: Type.String({ description: 'the client id the app registered' }),
  name: Type.String({ description: 'the name the app gave itself at registration (not verified)' }),
  redirectHosts: Type.Array(Type.String(), { description: 'where the app receives its code: the hosts of its registered redirect URIs' }),
});

export const ConnectedAppSchema = Type.Object(
  {
    id: Type.String({ description: 'the grant: revoke it with DELETE /user/connected-apps/{id}' }),
    client: ClientSchema,
    scopes: Type.Array(Scope),
    organization: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the organization the app acts in' }),
    grantedAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'the last request to /mcp with one of its tokens (kept to the minute)' }),
  },
  { $id: 'ConnectedApp' },
);
export type ConnectedAppDto = Static<typeof ConnectedAppSchema>;

export const InteractionSchema = Type.Object(
  {
    uid: Type.String(),
    client: ClientSchema,
    scopes: Type.Array(Scope, { description: 'what the app asks for (of the scopes this service knows)' }),
    organization: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the organization it will act in: the active one' }),
  },
  { $id: 'OAuthInteraction' },
);
export type InteractionDto = Static<typeof InteractionSchema>;

export const DecisionBody = Type.Object({
  allow: Type.Boolean({ description: 'true grants the scopes asked for; false refuses (the app gets access_denied)' }),
});

export const DecisionSchema = Type.Object(
  { redirectTo: Type.String({ description: 'where the browser goes next: back to the authorization server, which sends it on to the app' }) },
  { $id: 'OAuthDecision' },
);
