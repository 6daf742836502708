import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, credentialOf } from '../../platform/auth.js';
import { sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import type { App } from '../../platform/types.js';
import { rebindingRefusal } from './mcp.policy.js';
import { mcpEnabledFor } from './mcp.service.js';
import { McpSessions, type McpSession } from './mcp.sessions.js';

/** JSON-RPC's "no such session": the Streamable HTTP transport answers it with 404, and the client starts over. */
export const SESSION_GONE = -32001;

const isInitialize = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');

const rpcError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).type('application/json; charset=utf-8').send({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * The /mcp handler: checks Host and Origin, the organization's switch and the session's owner,
 * then hands the raw request to the SDK's Streamable HTTP transport (the reply is hijacked: the
 * transport writes JSON or an event stream itself). The SDK is imported on the first request.
 */
export function mcpEndpoint(app: App): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const sessions = new McpSessions();
  // Open event streams would hold the shutdown's drain: they end first.
  app.addHook('preClose', async () => sessions.closeAll());
  let server: Promise<typeof import('./mcp.server.js')> | null = null;
  const resource = `${app.config.publicUrl}/mcp`;

  return async (request, reply) => {
    const refusal = rebindingRefusal(app.config, request.headers.host, request.headers.origin);
    if (refusal) throw new AppError('FORBIDDEN', refusal);
    const actor = actorOf(request);
    // RFC 8707: an OAuth token issued for another resource is no credential here.
    if (actor.oauth && !actor.oauth.audience.includes(resource)) throw new AppError('UNAUTHENTICATED', 'this access token was issued for another resource');
    if (!(await mcpEnabledFor(app.database.db, actor.organizationId))) {
      throw new AppError('MCP_DISABLED', 'an administrator has turned AI agent access (MCP) off for this organization');
    }
    // A session belongs to the credential that opened it; for OAuth, to the grant, since its access tokens change at every refresh.
    const credentialHash = actor.oauth ? `oauth:${actor.oauth.grantId}` : sha256(credentialOf(request)!);
    const sessionId = request.headers['mcp-session-id'];
    let session: McpSession | null;
    if (typeof sessionId === 'string') {
      session = sessions.get(sessionId, credentialHash);
      if (!session) {
        return rpcError(reply, 404, SESSION_GONE, 'Session not found: it ended, expired or the server restarted. Start a new session: send initialize without an Mcp-Session-Id header.');
      }
    } else if (request.method === 'POST' && isInitialize(request.body)) {
      server ??= import('./mcp.server.js');
      session = await (await server).openSession(app, { credentialHash, userId: actor.userId, organizationId: actor.organizationId }, sessions);
    } else {
      return rpcError(reply, 400, -32000, 'Bad Request: no Mcp-Session-Id; start a session with initialize');
    }
    // The SDK hands this to every tool as extra.authInfo: the tools act as this actor, and no one else.
    Object.assign(request.raw, { auth: { token: '', clientId: 'mcp', scopes: actor.oauth?.scopes ?? (actor.readOnly ? ['read'] : ['read', 'write']), extra: { actor } } });
    // A hijacked reply sends none of the headers set so far (CORS, rate limit, request id): the transport's answer carries them.
    reply.header('x-request-id', request.id);
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
    // An initialize the transport refused left a session without an id: nothing else will end it.
    if (!session.id) await session.close();
    return reply;
  };
}
