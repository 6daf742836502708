import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { SecretBox } from '../../platform/secrets.js';
import { signingKeys } from './oauth.keys.js';
import { discoverAuthorizationServerMetadata, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, ok, refused } from '../mcp/mcp.fixtures.js';
import { factories } from '../../test/factories.js';
import { MemoryOAuthClient, connectWithOAuth, consentOverHttp, useOAuthApp } from './oauth.fixtures.js';

const { kit, base } = useOAuthApp();
const f = factories(kit);

/** A user with a board, connected through the SDK's OAuth client, consent given over HTTP; `scope` narrows what the app asks for. */
async function connected(scope?: string) {
  const board = await f.board(2);
  const oauth = new MemoryOAuthClient('Test OAuth Agent');
  const { client } = await connectWithOAuth(base(), oauth, (url) => {
    if (scope) url.searchParams.set('scope', scope);
    return consentOverHttp(base(), url, board.owner);
  });
  return { ...board, oauth, client };
}

const mcpPing = (token: string) =>
  fetch(`${base()}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

async function metadata() {
  const meta = await discoverAuthorizationServerMetadata(base());
  if (!meta) throw new Error('no authorization server metadata');
  return meta;
}

describe('OAuth for /mcp', () => {
  it('publishes the protected-resource and authorization server metadata: S256 only, code flow, open registration', async () => {
    const prm = await (await fetch(`${base()}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ resource: `${base()}/mcp`, authorization_servers: [base()] });
    const res = await fetch(`${base()}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta).toMatchObject({
      issuer: base(),
      authorization_endpoint: `${base()}/oauth/auth`,
      token_endpoint: `${base()}/oauth/token`,
      registration_endpoint: `${base()}/oauth/reg`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('generates its signing key once and keeps it encrypted: the JWKS publishes only the public part, the log never sees it', async () => {
    const jwks = (await (await fetch(`${base()}/oauth/jwks`)).json()) as { keys: Array<Record<string, string>> };
    // The worker's database may also hold keys other files' apps stored under another SECRETS_KEY.
    const rows = (await kit.sql<{ kid: string; encrypted: string }>(sql`select kid, encrypted from oauth_keys`)).filter((r) => jwks.keys.some((k) => k.kid === r.kid));
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    const stored = JSON.parse(kit.app.secrets.decrypt(rows[0]!.encrypted, `oauth-signing-key:${rows[0]!.kid}`)) as { d: string; n: string };
    expect(rows[0]!.encrypted).not.toContain(stored.n.slice(0, 40));
    expect(kit.logs.join('\n')).not.toContain(stored.d.slice(0, 40));
  });

  it('keeps working when SECRETS_KEY changed: keys it cannot open are left unused (named in the log by kid), and a new one is made', async () => {
    const other = SecretBox.fromKey(randomBytes(32).toString('base64'));
    const warnings: Array<{ kid: string }> = [];
    const keys = await signingKeys(kit.app.database.db, other, { warn: (details) => warnings.push(details as { kid: string }) });
    expect(keys).toHaveLength(1);
    const rows = await kit.sql<{ kid: string; encrypted: string }>(sql`select kid, encrypted from oauth_keys`);
    // The new key is stored under the new box; the old ones are still there, named in the warnings.
    const fresh = rows.find((r) => r.kid === keys[0]!.kid)!;
    expect(JSON.parse(other.decrypt(fresh.encrypted, `oauth-signing-key:${fresh.kid}`))).toMatchObject({ kid: fresh.kid, kty: 'RSA' });
    expect(warnings.map((w) => w.kid).sort()).toEqual(rows.filter((r) => r.kid !== fresh.kid).map((r) => r.kid).sort());
    // Opened again with the same box: that key, and no other made.
    expect((await signingKeys(kit.app.database.db, other)).map((k) => k.kid)).toEqual([fresh.kid]);
    await kit.sql(sql`delete from oauth_keys where kid = ${fresh.kid}`);
  });

  it('goes through discovery, registration, consent with PKCE and the code exchange; the token works on /mcp and is stored only hashed', async () => {
    const { client, oauth, owner } = await connected();
    const work = await ok(client, 'my_work', {});
    expect(work).toBeTruthy();
    await ok(client, 'create_task', { project: (await ok<{ projects: Array<{ name: string }> }>(client, 'list_projects', {})).projects[0]!.name, title: 'Filed through OAuth' });
    const token = oauth.saved!.access_token;
    // Issued for /mcp, and nothing else: the rest of the API does not know it.
    expect((await fetch(`${base()}/user/organization`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(oauth.saved).toMatchObject({ token_type: expect.stringMatching(/bearer/i), refresh_token: expect.any(String) });
    expect(oauth.saved!.expires_in).toBeLessThanOrEqual(900);
    const raw = await kit.sql<{ n: number }>(sql`select count(*)::int as n from oauth_records where id = ${token} or payload::text like ${`%${token}%`}`);
    expect(raw[0]!.n).toBe(0);
    const apps = await kit.as(owner).get('/user/connected-apps');
    expect(apps.statusCode).toBe(200);
    expect(apps.json()).toMatchObject([{ client: { name: 'Test OAuth Agent', redirectHosts: ['127.0.0.1:9'] }, scopes: ['tasks:read', 'tasks:write', 'docs:read'], organization: { id: owner.organizationId } }]);
    expect(apps.json()[0].lastUsedAt).not.toBeNull();
  });

  it("keeps an OAuth session's task subscription alive: its grant counts as the live credential", async () => {
    const { client, owner, stages } = await connected();
    const task = await f.task(owner, stages[0]!.id, { name: 'Watched through OAuth' });
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.subscribeResource({ uri: `workboard://task/${task.id}` });
    await kit.as(owner).patch(`/tasks/${task.id}/name`, { name: 'Renamed' });
    await expect.poll(() => updated, { timeout: 15_000 }).toContain(`workboard://task/${task.id}`);
    await ok(client, 'get_task', { taskId: task.id });
  });

  it('refuses a token issued for another resource, and will not issue one', async () => {
    const { oauth } = await connected();
    const token = oauth.saved!.access_token;
    expect((await mcpPing(token)).status).toBe(200);
    // The same server's token with another audience (as if issued for another resource): no credential at /mcp.
    await kit.sql(sql`update oauth_records set payload = jsonb_set(payload, '{aud}', '"https://other.example/mcp"') where model = 'AccessToken' and id = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')`);
    const refusedRes = await mcpPing(token);
    expect(refusedRes.status).toBe(401);
    expect(refusedRes.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // And the authorization server refuses another resource outright.
    const meta = await metadata();
    await expect(
      refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: oauth.saved!.refresh_token!, resource: new URL('https://other.example/mcp') }),
    ).rejects.toThrow(/invalid_target|resource/i);
    // Refused before the rotation: the app's refresh token still works.
    await refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: oauth.saved!.refresh_token!, resource: new URL(`${base()}/mcp`) });
  });

  it('rotates refresh tokens: a refresh token works once, and one used again revokes the grant', async () => {
    const { oauth } = await connected();
    const meta = await metadata();
    const resource = new URL(`${base()}/mcp`);
    const first = oauth.saved!.refresh_token!;
    const next = await refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: first, resource });
    expect(next.refresh_token).toBeTruthy();
    expect(next.refresh_token).not.toBe(first);
    expect((await mcpPing(next.access_token)).status).toBe(200);
    await expect(refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: first, resource })).rejects.toThrow(/invalid_grant|grant/i);
    // A used refresh token coming back means one of the two holders is not the app: the whole grant goes.
    expect((await mcpPing(next.access_token)).status).toBe(401);
    await expect(refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: next.refresh_token!, resource })).rejects.toThrow(/invalid_grant|grant/i);
  });

  it('revoking the app in Connected apps ends its access and refresh tokens at once', async () => {
    const { oauth, owner, client } = await connected();
    const [app] = (await kit.as(owner).get('/user/connected-apps')).json() as Array<{ id: string }>;
    const res = await kit.as(owner).delete(`/user/connected-apps/${app!.id}`);
    expect(res.statusCode).toBe(204);
    expect((await mcpPing(oauth.saved!.access_token)).status).toBe(401);
    // The open session's next request is refused too.
    await expect(client.callTool({ name: 'my_work', arguments: {} })).rejects.toThrow();
    const meta = await metadata();
    await expect(refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: oauth.saved!.refresh_token!, resource: new URL(`${base()}/mcp`) })).rejects.toThrow(/invalid_grant|grant/i);
    expect((await kit.as(owner).get('/user/connected-apps')).json()).toEqual([]);
  });

  it('maps scopes onto the tools: without tasks:write the write tools answer a tool error, without docs:read the documentation tools', async () => {
    const { client, project } = await connected('tasks:read');
    await ok(client, 'list_projects', {});
    await refused(client, 'create_task', { project: project.id, title: 'nope' }, 'INSUFFICIENT_SCOPE');
    await refused(client, 'search_docs', { query: 'anything' }, 'INSUFFICIENT_SCOPE');
    const result = await call(client, 'my_work', {});
    expect(result.isError).toBeFalsy();
  });

  it("honours the organization's MCP switch", async () => {
    const { oauth, owner } = await connected();
    expect((await kit.as(owner).patch('/user/organization/mcp-enabled', { mcpEnabled: false })).statusCode).toBe(200);
    const res = await mcpPing(oauth.saved!.access_token);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'MCP_DISABLED' });
  });

  it('a member deactivated in the organization loses access at once: no request, no refresh', async () => {
    const owner = await kit.org({ name: 'Owner' });
    const member = await kit.member(owner, 'member');
    const oauth = new MemoryOAuthClient('Member Agent');
    await connectWithOAuth(base(), oauth, (url) => consentOverHttp(base(), url, member));
    expect((await mcpPing(oauth.saved!.access_token)).status).toBe(200);
    await kit.sql(sql`update organization_members set active = false where organization_id = ${owner.organizationId} and user_id = ${member.id}`);
    expect((await mcpPing(oauth.saved!.access_token)).status).toBe(401);
    const meta = await metadata();
    await expect(
      refreshAuthorization(base(), { metadata: meta, clientInformation: oauth.client!, refreshToken: oauth.saved!.refresh_token!, resource: new URL(`${base()}/mcp`) }),
    ).rejects.toThrow(/grant/i);
  });

  it('a denied consent sends the app back with access_denied and grants nothing', async () => {
    const board = await f.board(1);
    const oauth = new MemoryOAuthClient('Denied Agent');
    await expect(
      connectWithOAuth(base(), oauth, async (url) => {
        const back = await consentOverHttp(base(), url, board.owner, false);
        expect(back.get('error')).toBe('access_denied');
        return back;
      }),
    ).rejects.toThrow();
    expect((await kit.as(board.owner).get('/user/connected-apps')).json()).toEqual([]);
  });
});
