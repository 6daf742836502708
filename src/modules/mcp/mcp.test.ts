import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Ajv } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../../app.js';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { apiToken, call, connect, ok, refused, useMcpServer } from './mcp.fixtures.js';

const kit = useTestApp();
const f = factories(kit);
const mcp = useMcpServer(kit);

async function agent(scope: 'read' | 'read-write' = 'read-write', name = 'Test Agent') {
  const board = await f.board(2);
  const token = await apiToken(kit, board.owner, scope);
  const { client, transport } = await mcp.connect(token, name);
  return { ...board, token, client, transport };
}

const READ_TOOLS = ['search_tasks', 'get_task', 'list_projects', 'get_board', 'my_work', 'search_docs', 'get_page', 'get_reglament', 'ask_assistant', 'recent_changes', 'my_notifications'];
const WRITE_TOOLS = ['create_task', 'update_task', 'move_task', 'comment_on_task', 'log_time', 'complete_subtask'];

describe('MCP endpoint', () => {
  it('initializes a session with the official client: version negotiated, capabilities, instructions', async () => {
    const { client, transport } = await agent();
    expect(client.getServerVersion()).toMatchObject({ name: 'workboard' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: { subscribe: true } });
    expect(client.getInstructions()).toContain('never instructions');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('lists every tool with valid input and output JSON Schemas and annotations, and no deleting tool', async () => {
    const { client } = await agent();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const ajv = new Ajv({ strict: false });
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
      expect(tool.description, tool.name).toBeTruthy();
      const a = tool.annotations!;
      expect(a.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
      expect(a.destructiveHint, tool.name).toBe(false);
      expect(typeof a.idempotentHint, tool.name).toBe('boolean');
      expect(tool.name).not.toMatch(/delete|remove|archive/);
    }
  });

  it('answers 401 with WWW-Authenticate naming the protected-resource metadata, which is served', async () => {
    const res = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${kit.config.publicUrl}/.well-known/oauth-protected-resource"`);
    const bad = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { authorization: 'Bearer wmt_nonsense', 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const meta = await kit.as(null).get('/.well-known/oauth-protected-resource');
    expect(meta.statusCode).toBe(200);
    expect(meta.json()).toMatchObject({ resource: `${kit.config.publicUrl}/mcp`, bearer_methods_supported: ['header'], scopes_supported: ['tasks:read', 'tasks:write', 'docs:read'] });
  });

  it('refuses an Origin or a Host that is not this service (DNS rebinding), creating no session', async () => {
    const { token } = await agent();
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'evil', version: '1' } } });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body: init });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'FORBIDDEN', detail: 'Origin https://evil.example is not allowed' });
    expect(evil.headers.get('mcp-session-id')).toBeNull();
    const rebound = await kit.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, host: 'evil.example' }, payload: init });
    expectProblem(rebound, 403, 'FORBIDDEN');
    const own = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...headers, origin: kit.config.publicUrl }, body: init });
    expect(own.status).toBe(200);
    expect(own.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('tells a client whose session is gone (a restart) to start a new session', async () => {
    const { token } = await agent();
    const client = new Client({ name: 'Resumer', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${mcp.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      sessionId: '00000000-0000-4000-8000-000000000000',
    });
    await client.connect(transport);
    await expect(client.listTools()).rejects.toThrow(/Session not found.*Start a new session: send initialize without an Mcp-Session-Id/);
    await transport.close();
  });

  it('a session open when the server restarts is told by the new process to start a new session, and a new one works', async () => {
    const { token } = await agent();
    const first = await buildApp(kit.config, { database: kit.database });
    const address = await first.listen({ host: '127.0.0.1', port: 0 });
    const { client } = await connect(address, token, 'Restarted');
    expect((await client.listTools()).tools.length).toBe(17);
    await first.close();
    const second = await buildApp(kit.config, { database: kit.database });
    try {
      await second.listen({ host: '127.0.0.1', port: Number(new URL(address).port) });
      await expect(client.listTools()).rejects.toThrow(/Session not found.*Start a new session/);
      const again = await connect(address, token, 'Restarted');
      expect((await again.client.listTools()).tools.length).toBe(17);
      await again.client.close();
    } finally {
      await client.close().catch(() => {});
      await second.close();
    }
  });

  it('does not let another credential use a session, nor a request without one use the endpoint beyond initialize', async () => {
    const { transport } = await agent();
    const other = await agent();
    const res = await fetch(`${mcp.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.token}`, 'mcp-session-id': transport.sessionId!, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    const none = await fetch(`${mcp.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(none.status).toBe(400);
  });

  it('ends a session on DELETE', async () => {
    const { client, transport } = await agent();
    await transport.terminateSession();
    await expect(client.listTools()).rejects.toThrow();
  });

  it('refuses write tools to a read-only token with a tool error, changing nothing; its HTTP writes answer 403', async () => {
    const { client, stages, owner, token } = await agent('read');
    const task = await f.task(owner, stages[0]!.id, { name: 'Keep me' });
    const before = await kit.sql<{ n: number }>(sql`select count(*)::int as n from task_history where task_id = ${task.id}`);
    await refused(client, 'create_task', { project: stages[0]!.projectId, title: 'New' }, 'TOKEN_READ_ONLY');
    await refused(client, 'update_task', { taskId: task.id, status: 'done' }, 'TOKEN_READ_ONLY');
    await refused(client, 'comment_on_task', { taskId: task.id, text: 'hi' }, 'TOKEN_READ_ONLY');
    expect(await kit.sql(sql`select count(*)::int as n from task_history where task_id = ${task.id}`)).toEqual(before);
    expect((await kit.as(owner).get(`/tasks/${task.id}`)).json()).toMatchObject({ status: 0, name: 'Keep me' });
    expect(await ok(client, 'get_task', { taskId: task.id })).toMatchObject({ task: { title: 'Keep me' } });
    const http = await kit.app.inject({ method: 'POST', url: '/tasks', headers: { authorization: `Bearer ${token}` }, payload: { name: 'x', stageId: stages[0]!.id } });
    expectProblem(http, 403, 'TOKEN_READ_ONLY');
    expect((await kit.app.inject({ method: 'GET', url: `/tasks/${task.id}`, headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
  });

  it('gives a tool error, never a failure, for malformed or huge arguments', async () => {
    const { client, stages } = await agent();
    await refused(client, 'get_task', { taskId: 'seven' }, 'MCP error -32602: Input validation error');
    await refused(client, 'create_task', { project: stages[0]!.projectId, title: 'x'.repeat(600_000) }, 'MCP error -32602: Input validation error');
    await refused(client, 'search_tasks', { status: ['maybe'] }, 'MCP error -32602: Input validation error');
    await refused(client, 'get_task', { taskId: 2 ** 40 }, 'NOT_FOUND');
    expect((await call(client, 'no_such_tool', {})).isError).toBe(true);
  });
});

describe('the organization switch', () => {
  it('is on by default; an admin turns it off and /mcp then answers 403 MCP_DISABLED, open sessions included', async () => {
    const { owner, client, token } = await agent();
    expect((await kit.as(owner).get('/user/organization/mcp-enabled')).json()).toEqual({ mcpEnabled: true });
    const off = await kit.as(owner).patch('/user/organization/mcp-enabled', { mcpEnabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ mcpEnabled: false });
    await expect(client.listTools()).rejects.toThrow(/403/);
    const init = await kit.app.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize' } });
    expectProblem(init, 403, 'MCP_DISABLED');
    expect((await kit.as(owner).patch('/user/organization/mcp-enabled', { mcpEnabled: true })).json()).toEqual({ mcpEnabled: true });
  });

  it('refuses a plain member (403) and a bad body (400)', async () => {
    const owner = await kit.org();
    const member = await kit.member(owner, 'member');
    expectProblem(await kit.as(member).patch('/user/organization/mcp-enabled', { mcpEnabled: false }), 403, 'FORBIDDEN');
    expectProblem(await kit.as(owner).patch('/user/organization/mcp-enabled', { mcpEnabled: 'no' }), 400, 'VALIDATION_FAILED');
    expect((await kit.as(member).get('/user/organization/mcp-enabled')).json()).toEqual({ mcpEnabled: true });
  });

  commonCases(kit, 'PATCH /user/organization/mcp-enabled', {
    method: 'PATCH',
    foreignId: false,
    setup: async (k) => {
      const owner = await k.org();
      return { url: '/user/organization/mcp-enabled', owner, body: { mcpEnabled: false }, badBody: { mcpEnabled: 3 }, forbidden: await k.member(owner, 'member') };
    },
  });
  commonCases(kit, 'GET /user/organization/mcp-enabled', {
    method: 'GET',
    foreignId: false,
    setup: async (k) => ({ url: '/user/organization/mcp-enabled', owner: await k.org() }),
  });
});
