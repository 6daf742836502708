import { afterAll, beforeAll, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestKit, TestUser } from '../../test/app.js';

/** A personal API token of the user, with the scope asked for. */
export async function apiToken(kit: TestKit, user: TestUser, scope: 'read' | 'read-write' = 'read-write'): Promise<string> {
  const res = await kit.as(user).post('/user/api-tokens', { name: `agent ${scope}`, scope });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ scope });
  return (res.json() as { token: string }).token;
}

/** The official SDK client on the Streamable HTTP transport, connected (initialize done). */
export async function connect(base: string, token: string, name = 'Test Agent', options: { sessionId?: string } = {}) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  await client.connect(transport);
  return { client, transport };
}

/**
 * The file's app on a port of 127.0.0.1 (`base`, once its beforeAll ran) and SDK clients connected to
 * it, closed after the file's tests.
 */
export function useMcpServer(kit: TestKit) {
  const clients: Client[] = [];
  const server = {
    base: '',
    async connect(token: string, name = 'Test Agent') {
      const connected = await connect(server.base, token, name);
      clients.push(connected.client);
      return connected;
    },
  };
  beforeAll(async () => {
    server.base = await kit.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  });
  return server;
}

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A successful tool result's structured content. */
export async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

/** A tool error with the given code. */
export async function refused(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<ToolResult> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect((result.content[0] as { text: string }).text).toMatch(new RegExp(`^${code}`));
  return result;
}
