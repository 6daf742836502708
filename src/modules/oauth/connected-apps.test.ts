import { describe, expect, it } from 'vitest';
import { expectProblem, fingerprint, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { apiToken } from '../mcp/mcp.fixtures.js';
import { Jar, MemoryOAuthClient, connectWithOAuth, consentOverHttp, useOAuthApp } from './oauth.fixtures.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';

const { kit, base } = useOAuthApp();

/** The same user, calling with a personal API token instead of a session. */
async function withApiToken(user: TestUser): Promise<TestUser> {
  return { ...user, headers: { authorization: `Bearer ${await apiToken(kit, user)}` } };
}

/** A user who connected an app (through the whole flow), and the app's grant id. */
async function granted(user?: TestUser) {
  const owner = user ?? (await kit.org({ name: 'Grantor' }));
  const oauth = new MemoryOAuthClient('Connected Agent');
  await connectWithOAuth(base(), oauth, (url) => consentOverHttp(base(), url, owner));
  const apps = (await kit.as(owner).get('/user/connected-apps')).json() as Array<{ id: string }>;
  return { owner, oauth, grantId: apps[0]!.id };
}

/** An authorization request started by a client, up to the consent page: its uid and the browser's cookies. */
async function pendingConsent() {
  const oauth = new MemoryOAuthClient('Pending Agent');
  const transport = new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { authProvider: oauth });
  await expect(new Client({ name: 'p', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  const jar = new Jar();
  const res = await fetch(oauth.authorizationUrl!, { redirect: 'manual' });
  jar.take(res);
  const uid = res.headers.get('location')!.split('/').pop()!;
  return { uid, jar };
}

describe('Connected apps', () => {
  it('lists only the user’s own grants: another user of the same organization sees none and gets 404 for the id', async () => {
    const { owner, grantId } = await granted();
    const colleague = await kit.member(owner, 'admin');
    expect((await kit.as(colleague).get('/user/connected-apps')).json()).toEqual([]);
    const before = await fingerprint(kit, [owner.organizationId], [owner.id, colleague.id]);
    expectProblem(await kit.as(colleague).delete(`/user/connected-apps/${grantId}`), 404, 'NOT_FOUND');
    expect(await fingerprint(kit, [owner.organizationId], [owner.id, colleague.id])).toBe(before);
    expect((await kit.as(owner).get('/user/connected-apps')).json()).toHaveLength(1);
  });

  it('answers 400 to an id that cannot be a grant, changing nothing', async () => {
    const { owner } = await granted();
    const before = await fingerprint(kit, [owner.organizationId], [owner.id]);
    expectProblem(await kit.as(owner).delete('/user/connected-apps/not%20a%20grant'), 400, 'VALIDATION_FAILED');
    expect(await fingerprint(kit, [owner.organizationId], [owner.id])).toBe(before);
  });

  it('consenting again to the same app adds to its one grant instead of listing it twice', async () => {
    const { owner, oauth } = await granted();
    const again = new MemoryOAuthClient('Connected Agent');
    again.client = oauth.client;
    await connectWithOAuth(base(), again, (url) => consentOverHttp(base(), url, owner));
    expect((await kit.as(owner).get('/user/connected-apps')).json()).toHaveLength(1);
  });

  commonCases(kit, 'GET /user/connected-apps', {
    method: 'GET',
    setup: async () => {
      const { owner } = await granted();
      return { url: '/user/connected-apps', owner, forbidden: await withApiToken(owner) };
    },
    foreignId: false,
  });

  commonCases(kit, 'DELETE /user/connected-apps/{id}', {
    method: 'DELETE',
    setup: async () => {
      const { owner, grantId } = await granted();
      return { url: `/user/connected-apps/${grantId}`, owner, forbidden: await withApiToken(owner) };
    },
    foreignId: true,
  });
});

describe('the consent screen’s calls', () => {
  it('show the app, the scopes and the organization to the signed-in user of the browser that started the request', async () => {
    const { uid, jar } = await pendingConsent();
    const user = await kit.org({ name: 'Consenting' });
    const res = await fetch(`${base()}/oauth/interaction/${uid}/details`, { headers: { cookie: jar.header, 'service-session': user.session } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ uid, client: { name: 'Pending Agent', redirectHosts: ['127.0.0.1:9'] }, scopes: ['tasks:read', 'tasks:write', 'docs:read'], organization: { id: user.organizationId } });
  });

  it('answer 404 to another browser (no interaction cookie), 401 without a session, 403 to an API token, 400 to a bad body', async () => {
    const { uid, jar } = await pendingConsent();
    const user = await kit.org({ name: 'Consenting' });
    const details = (headers: Record<string, string>) => fetch(`${base()}/oauth/interaction/${uid}/details`, { headers });
    expect((await details({ 'service-session': user.session })).status).toBe(404);
    expect((await details({ cookie: jar.header })).status).toBe(401);
    const token = (await withApiToken(user)).headers;
    const refused = await details({ cookie: jar.header, ...token });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN' });
    const decide = (body: unknown, headers: Record<string, string>) =>
      fetch(`${base()}/oauth/interaction/${uid}/decision`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: jar.header, ...headers }, body: JSON.stringify(body) });
    expect((await decide({ allow: 'yes' }, { 'service-session': user.session })).status).toBe(400);
    expect((await decide({ allow: true }, token)).status).toBe(403);
    expect((await kit.as(user).get('/user/connected-apps')).json()).toEqual([]);
  });

  it('refuse to allow an app while the organization has AI agents turned off', async () => {
    const { uid, jar } = await pendingConsent();
    const user = await kit.org({ name: 'Switched off' });
    expect((await kit.as(user).patch('/user/organization/mcp-enabled', { mcpEnabled: false })).statusCode).toBe(200);
    const res = await fetch(`${base()}/oauth/interaction/${uid}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: jar.header, 'service-session': user.session },
      body: JSON.stringify({ allow: true }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'MCP_DISABLED' });
    expect((await kit.as(user).get('/user/connected-apps')).json()).toEqual([]);
  });

  it('a consent page opened in the browser goes to the web client', async () => {
    const res = await fetch(`${base()}/oauth/interaction/abcdefghijklmnop`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/app/oauth/abcdefghijklmnop');
  });
});
