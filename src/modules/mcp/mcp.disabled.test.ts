import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../test/app.js';

const kit = useTestApp({ mcpEnabled: false });

describe('MCP_ENABLED=false', () => {
  it('serves no /mcp (404) while the organization switch and the metadata still answer', async () => {
    const owner = await kit.org();
    expectProblem(await kit.as(owner).post('/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize' }), 404, 'ROUTE_NOT_FOUND');
    expectProblem(await kit.as(owner).get('/mcp'), 404, 'ROUTE_NOT_FOUND');
    expect((await kit.as(owner).get('/user/organization/mcp-enabled')).json()).toEqual({ mcpEnabled: true });
    expect((await kit.as(null).get('/.well-known/oauth-protected-resource')).statusCode).toBe(200);
  });
});
