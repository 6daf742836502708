import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { useTestApp } from '../../test/app.js';
import { apiToken, useMcpServer } from './mcp.fixtures.js';

// A browser-based client (the MCP Inspector's direct mode) on an allowed origin.
const LIMIT = 30;
const kit = useTestApp({ corsOrigins: ['https://inspector.example'], apiRateLimitPerMinute: LIMIT });
const mcp = useMcpServer(kit);

describe('MCP endpoint with CORS_ORIGINS', () => {
  it('answers an allowed origin with CORS headers that expose the session id, and refuses another', async () => {
    const owner = await kit.org();
    const token = await apiToken(kit, owner);
    const preflight = await fetch(`${mcp.base}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'Inspector', version: '1' } } });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://inspector.example' }, body: init });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://inspector.example');
    expect(res.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
    expect(res.headers.get('x-request-id')).toMatch(/^req-/);
    const other = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://other.example' }, body: init });
    expect(other.status).toBe(403);
    const { client } = await mcp.connect(token);
    expect((await client.listTools()).tools).toHaveLength(17);
    // Nothing secret reached the log.
    expect(kit.logs.filter((line) => line.includes(token) || line.includes('wmt_'))).toEqual([]);
  });

  it('counts MCP requests against the token\'s rate limit: past it, 429', async () => {
    const owner = await kit.org();
    const token = await apiToken(kit, owner);
    const { client } = await mcp.connect(token);
    let refusal: unknown = null;
    for (let i = 0; i < LIMIT + 5 && !refusal; i++) await client.listTools().catch((err: unknown) => (refusal = err));
    expect(String(refusal)).toMatch(/429/);
    // Another token of the same user has its own budget.
    const other = await mcp.connect(await apiToken(kit, owner));
    expect((await other.client.listTools()).tools).toHaveLength(17);
  });
});
