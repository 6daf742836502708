import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { credentialOf } from '../../platform/auth.js';
import { read, write } from '../../platform/context.js';
import * as S from './mcp.schemas.js';
import * as mcp from './mcp.service.js';
import { mcpEndpoint } from './mcp.endpoint.js';

const tags = ['AI agents (MCP)'];

const JsonRpcError = Type.Object(
  { jsonrpc: Type.Literal('2.0'), error: Type.Object({ code: Type.Integer(), message: Type.String() }), id: Type.Null() },
  { description: 'a JSON-RPC error (404: the session is unknown, start a new one with initialize)' },
);

export default async function mcpRoutes(app: App): Promise<void> {
  app.get(
    '/user/organization/mcp-enabled',
    { schema: { tags, summary: 'Whether AI agents may reach the organization through the MCP endpoint', response: { 200: S.McpSwitchSchema } } },
    (request) => read(app, request, (ctx) => mcp.readMcpSwitch(ctx)),
  );

  app.patch(
    '/user/organization/mcp-enabled',
    {
      schema: {
        tags,
        summary: 'Turn AI agent access (MCP) on or off for the organization (admin); open sessions are refused from their next request',
        body: S.McpSwitchBody,
        response: { 200: S.McpSwitchSchema },
      },
    },
    (request) => write(app, request, (ctx) => mcp.setMcpSwitch(ctx, request.body.mcpEnabled)),
  );

  const resourceMetadata = `${app.config.publicUrl}/.well-known/oauth-protected-resource`;
  app.get(
    '/.well-known/oauth-protected-resource',
    {
      config: { public: true },
      schema: { tags, summary: 'OAuth protected-resource metadata of the MCP endpoint (RFC 9728)', security: [], response: { 200: S.ProtectedResourceSchema } },
    },
    async () => ({
      resource: `${app.config.publicUrl}/mcp`,
      // The service's own authorization server (src/modules/oauth), which needs SECRETS_KEY for its keys.
      authorization_servers: app.config.mcpEnabled && app.secrets.available ? [app.config.publicUrl] : [],
      bearer_methods_supported: ['header'],
      scopes_supported: ['tasks:read', 'tasks:write', 'docs:read'],
      resource_name: 'Workboard MCP',
      resource_documentation: `${app.config.publicUrl}/docs`,
    }),
  );

  if (!app.config.mcpEnabled) return;
  const handle = mcpEndpoint(app);
  const routeSchema = (summary: string, body: boolean) => ({
    tags,
    summary,
    description:
      'The Model Context Protocol over Streamable HTTP (see docs/mcp.md). Authorization: Bearer with a personal API token or an OAuth access token issued for this resource; the agent acts as its user.',
    headers: S.McpHeaders,
    ...(body ? { body: S.JsonRpcBody } : {}),
    response: {
      200: S.McpStream,
      202: Type.Null({ description: 'a notification or response accepted' }),
      // The transport's own refusals are JSON-RPC; a body the route's schema refuses is a problem document.
      400: { description: 'a message the transport or the schema refused', content: { 'application/json': { schema: JsonRpcError }, 'application/problem+json': { schema: { $ref: 'Problem#' } } } },
      // A problem document for an unknown route's 404 would never come here; the transport's own is JSON-RPC.
      404: { description: 'the session is unknown (ended, expired, or the server restarted): start a new one with initialize', content: { 'application/json': { schema: JsonRpcError }, 'application/problem+json': { schema: { $ref: 'Problem#' } } } },
    },
  });
  // RFC 9728: a client without a valid token learns where the metadata is.
  const onSend = async (request: Parameters<typeof credentialOf>[0], reply: { statusCode: number; header(k: string, v: string): unknown }) => {
    if (reply.statusCode !== 401) return;
    reply.header('www-authenticate', `Bearer resource_metadata="${resourceMetadata}"${credentialOf(request) ? ', error="invalid_token"' : ''}`);
  };
  const config = { readOnlyCredential: true, oauthResource: true };
  app.post('/mcp', { config, onSend, schema: routeSchema('MCP: send a JSON-RPC message (initialize starts a session)', true) }, handle);
  app.get('/mcp', { config, onSend, schema: routeSchema('MCP: open the session’s event stream (server-sent events)', false) }, handle);
  app.delete('/mcp', { config, onSend, schema: routeSchema('MCP: end the session', false) }, handle);
}
