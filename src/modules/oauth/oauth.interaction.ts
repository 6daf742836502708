import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../platform/auth.js';
import { AppError } from '../../platform/errors.js';
import type { App } from '../../platform/types.js';
import { mcpEnabledFor } from '../mcp/mcp.service.js';
import { accountIdOf } from './oauth.adapter.js';
import type { ProviderLoader } from './oauth.mount.js';
import { authorizeGrantManagement, mcpResource } from './oauth.policy.js';
import { knownScopes, presentClient } from './oauth.presenter.js';
import type { InteractionDto } from './oauth.schemas.js';
import { existingGrantId, organizationName } from './oauth.service.js';

/**
 * The sign-in request (an oidc-provider interaction) this browser started. The provider checks it
 * against its interaction cookie, whose path is /oauth/interaction/<uid>: the consent page's calls
 * carry it, another browser's do not. Expired, unknown or another browser's: 404.
 */
async function interactionOf(load: ProviderLoader, request: FastifyRequest, reply: FastifyReply, uid: string) {
  const provider = await load();
  const interaction = await provider.interactionDetails(request.raw, reply.raw).catch(() => null);
  if (!interaction || interaction.uid !== uid) throw new AppError('NOT_FOUND', 'this sign-in request has expired or was started in another browser: start again from the app');
  const clientId = String(interaction.params.client_id ?? '');
  const client = await provider.Client.find(clientId);
  if (!client) throw new AppError('NOT_FOUND', 'the app that started this sign-in request is no longer registered');
  return { provider, interaction, clientId, client };
}

/** What the consent screen shows: the app (its own name, and where its code goes), the scopes asked for, and the organization. */
export async function describeInteraction(app: App, load: ProviderLoader, request: FastifyRequest, reply: FastifyReply, actor: Actor, uid: string): Promise<InteractionDto> {
  authorizeGrantManagement(actor);
  const { interaction, clientId, client } = await interactionOf(load, request, reply, uid);
  return {
    uid,
    client: presentClient(clientId, { client_name: client.clientName, redirect_uris: client.redirectUris }),
    scopes: knownScopes(interaction.params.scope),
    organization: { id: actor.organizationId, name: await organizationName(app.database.db, actor.organizationId) },
  };
}

/**
 * The user's answer. Allow: the signed-in user (in the active organization) becomes the provider's
 * account and the scopes asked for are granted on the MCP resource, added to an earlier grant of
 * the same app if there is one. Deny: the app gets access_denied. Either way the browser goes back
 * to the provider (`redirectTo`), which finishes the authorization request.
 */
export async function decideInteraction(
  app: App,
  load: ProviderLoader,
  request: FastifyRequest,
  reply: FastifyReply,
  actor: Actor,
  uid: string,
  allow: boolean,
): Promise<{ redirectTo: string }> {
  authorizeGrantManagement(actor);
  const { provider, interaction, clientId } = await interactionOf(load, request, reply, uid);
  let result: Record<string, unknown>;
  if (!allow) {
    result = { error: 'access_denied', error_description: 'the user did not allow access' };
  } else {
    if (!(await mcpEnabledFor(app.database.db, actor.organizationId))) {
      throw new AppError('MCP_DISABLED', 'an administrator has turned AI agent access (MCP) off for this organization');
    }
    const accountId = accountIdOf(actor.userId, actor.organizationId);
    const scopes = knownScopes(interaction.params.scope);
    if (scopes.length === 0) throw new AppError('VALIDATION_FAILED', 'the app asked for none of the scopes tasks:read, tasks:write, docs:read');
    const earlier = await existingGrantId(app.database.db, actor, clientId);
    const grant = (earlier ? await provider.Grant.find(earlier) : undefined) ?? new provider.Grant({ accountId, clientId });
    // Granted on the resource (what its access tokens carry), and as the provider's own scopes, which its consent check counts too.
    grant.addOIDCScope(scopes.join(' '));
    grant.addResourceScope(mcpResource(app.config.publicUrl), scopes.join(' '));
    const grantId = await grant.save();
    // Not remembered: the provider's sign-in lasts as long as the browser, the service's session is what counts.
    result = { login: { accountId, remember: false }, consent: { grantId } };
  }
  const redirectTo = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
  return { redirectTo };
}
