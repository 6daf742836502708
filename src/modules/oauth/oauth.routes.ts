import { Type } from 'typebox';
import { actorOf } from '../../platform/auth.js';
import { read, write } from '../../platform/context.js';
import { registerJob } from '../../platform/jobs.js';
import type { App } from '../../platform/types.js';
import * as S from './oauth.schemas.js';
import * as oauth from './oauth.service.js';
import { decideInteraction, describeInteraction } from './oauth.interaction.js';
import { mountProvider, providerLoader } from './oauth.mount.js';
import { OAUTH_PREFIX } from './oauth.policy.js';

const tags = ['AI agents (MCP)'];

/**
 * OAuth 2.1 for the MCP endpoint: the authorization server (oidc-provider, mounted lazily), the
 * consent screen's two calls, and Connected apps. Off with MCP_ENABLED=false, like /mcp itself.
 */
export default async function oauthRoutes(app: App): Promise<void> {
  if (!app.config.mcpEnabled) return;
  const load = providerLoader(app);
  await app.register((scope) => mountProvider(scope, load));

  registerJob(app, { name: 'oauth.purge', intervalMs: 60 * 60_000, exclusive: true, run: (a) => oauth.purgeOAuthRecords(a.database.db) });

  // Where the provider sends the browser to sign in and consent: the web client's consent page. A
  // browser's address, not an API operation: left out of the OpenAPI document, like /oauth itself.
  app.get(
    `${OAUTH_PREFIX}/interaction/:uid`,
    { config: { public: true }, schema: { hide: true, params: S.InteractionParams, response: { 303: Type.Null() } } },
    async (request, reply) => reply.header('cache-control', 'no-store').redirect(`/app/oauth/${request.params.uid}`, 303),
  );

  app.get(
    `${OAUTH_PREFIX}/interaction/:uid/details`,
    { schema: { tags, summary: 'OAuth: what an app asks for (the consent screen; a signed-in session of the browser that started the request)', params: S.InteractionParams, response: { 200: S.InteractionSchema } } },
    (request, reply) => describeInteraction(app, load, request, reply, actorOf(request), request.params.uid),
  );

  app.post(
    `${OAUTH_PREFIX}/interaction/:uid/decision`,
    {
      schema: {
        tags,
        summary: 'OAuth: allow or deny an app (the consent screen); answers where the browser goes next',
        params: S.InteractionParams,
        body: S.DecisionBody,
        response: { 200: S.DecisionSchema },
      },
    },
    (request, reply) => decideInteraction(app, load, request, reply, actorOf(request), request.params.uid, request.body.allow),
  );

  app.get(
    '/user/connected-apps',
    { schema: { tags, summary: 'The apps the user allowed to act for them through OAuth (Connected apps), with scopes and last use', response: { 200: Type.Array(S.ConnectedAppSchema) } } },
    (request) => read(app, request, (ctx) => oauth.listConnectedApps(ctx, app.config.publicUrl)),
  );

  app.delete(
    '/user/connected-apps/:grantId',
    { schema: { tags, summary: 'Revoke a connected app: its access and refresh tokens stop working at once', params: S.GrantParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => oauth.revokeConnectedApp(ctx, request.params.grantId));
      return reply.code(204).send(null);
    },
  );
}
