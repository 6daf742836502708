import Provider, { errors } from 'oidc-provider';
import type { FastifyInstance } from 'fastify';
import { adapterFor, parseAccountId } from './oauth.adapter.js';
import { cookieKeys, signingKeys } from './oauth.keys.js';
import { accountActive } from './oauth.service.js';
import { MCP_SCOPES, OAUTH_PREFIX, mcpResource } from './oauth.policy.js';

// Loaded on the first request that needs the authorization server (see oauth.mount.ts): oidc-provider,
// Koa and jose stay out of the memory of a service nobody connects an OAuth client to.

const MINUTE = 60;
const DAY = 24 * 60 * MINUTE;

/**
 * The authorization server for /mcp, on oidc-provider (an OpenID-certified implementation; nothing
 * of the protocol is written here). What this configuration decides:
 * - issuer PUBLIC_URL, endpoints under /oauth; metadata served at /.well-known/oauth-authorization-server;
 * - open dynamic registration (RFC 7591) of public clients only (`none` authentication: the MCP
 *   clients are apps on people's machines and chat services, which cannot keep a secret we gave
 *   them), code flow only, PKCE required (oidc-provider 9 knows only S256);
 * - one resource (RFC 8707): PUBLIC_URL/mcp with the scopes tasks:read, tasks:write, docs:read;
 *   any other resource indicator is invalid_target. Access tokens are opaque, 15 minutes, stored
 *   by their hash: /mcp looks them up, so revoking a grant ends them at once;
 * - refresh tokens for every grant, 30 days, rotated on each use: a used one is consumed, and if
 *   it comes back (stolen, or replayed) the provider revokes the whole grant, the app's too;
 * - login and consent happen in the web client with the service's own session (oauth.routes.ts).
 */
export async function buildProvider(app: FastifyInstance): Promise<Provider> {
  const { publicUrl } = app.config;
  const resource = mcpResource(publicUrl);
  const db = app.database.db;
  const provider = new Provider(publicUrl, {
    adapter: adapterFor(db),
    jwks: { keys: await signingKeys(db, app.secrets, app.log) },
    cookies: { keys: cookieKeys(app.secrets), long: { signed: true, sameSite: 'lax' }, short: { signed: true, sameSite: 'lax' } },
    clients: [],
    clientAuthMethods: ['none'],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Listed for registration, which checks a client's `scope` against them; access tokens take them from the resource (below).
    scopes: ['openid', 'offline_access', ...MCP_SCOPES],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = parseAccountId(id);
      // A removed or deactivated member cannot be signed in, nor refresh a token.
      if (!account || !(await accountActive(db, account))) return undefined;
      return { accountId: id, claims: () => ({ sub: id }) };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget!(`the only resource here is ${resource}`);
          return { scope: MCP_SCOPES.join(' '), audience: resource, accessTokenTTL: 15 * MINUTE, accessTokenFormat: 'opaque' };
        },
      },
    },
    // The MCP clients ask for tasks:* and docs:read, not offline_access: every grant gets a refresh token.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    // Rotated on every use, except by a request for another resource, which is refused after the
    // rotation point: rotating there would consume the app's refresh token and hand it no new one.
    rotateRefreshToken: (ctx: { oidc: { params: { resource?: unknown } } }) => {
      const asked = ctx.oidc.params.resource;
      return asked === undefined || (Array.isArray(asked) ? asked : [asked]).every((r) => r === resource);
    },
    ttl: {
      AccessToken: 15 * MINUTE,
      AuthorizationCode: MINUTE,
      RefreshToken: 30 * DAY,
      Grant: 180 * DAY,
      // The provider's own sign-in cookie: short, since the service's session is what counts.
      Session: 60 * MINUTE,
      Interaction: 60 * MINUTE,
      IdToken: 15 * MINUTE,
    },
    // Browser-based MCP clients (the Inspector) call the token endpoint from their own origin.
    clientBasedCORS: () => true,
    // Its HTML pages show the error code and description only; the details go to the log below.
    renderError: async (ctx: { type: string; body: string; status: number }, out: { error: string; error_description?: string }) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
  });
  // Behind Fastify: the mount sets X-Forwarded-Proto and -Host from PUBLIC_URL, so the URLs it prints are the public ones.
  provider.proxy = true;
  // Failures are logged by name and description only: a request body (a code, a refresh token) never reaches the log.
  const log = (event: string) => (_ctx: unknown, err: unknown) => {
    const e = err as { name?: string; error?: string; error_description?: string; status?: number };
    if ((e.status ?? 500) >= 500) app.log.error({ event, error: e.name, description: e.error_description }, 'OAuth server error');
    else app.log.info({ event, error: e.error, description: e.error_description }, 'OAuth request refused');
  };
  for (const event of ['server_error', 'authorization.error', 'grant.error', 'registration_create.error', 'revocation.error']) provider.on(event, log(event));
  return provider;
}
