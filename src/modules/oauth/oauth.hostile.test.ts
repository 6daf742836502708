import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ok } from '../mcp/mcp.fixtures.js';
import { MemoryOAuthClient, REDIRECT_URL, connectWithOAuth, consentOverHttp, useOAuthApp } from './oauth.fixtures.js';

const { kit, base } = useOAuthApp();

async function register(metadata: Record<string, unknown>) {
  return fetch(`${base()}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
}

async function publicClient(): Promise<string> {
  const res = await register({ client_name: 'Hostile', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizeUrl(params: Record<string, string>): string {
  const url = new URL(`${base()}/oauth/auth`);
  for (const [k, v] of Object.entries({ response_type: 'code', scope: 'tasks:read', resource: `${base()}/mcp`, state: 'xyz', ...params })) url.searchParams.set(k, v);
  return url.href;
}

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

describe('OAuth: hostile use', () => {
  it('refuses a redirect_uri that was not registered: an error page, never a redirect to it', async () => {
    const clientId = await publicClient();
    const res = await fetch(authorizeUrl({ client_id: clientId, redirect_uri: 'https://evil.example/steal', code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
  });

  it('refuses plain PKCE and a request without PKCE', async () => {
    const clientId = await publicClient();
    const cases: Array<Record<string, string>> = [{ code_challenge: verifier, code_challenge_method: 'plain' }, {}];
    for (const params of cases) {
      const res = await fetch(authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT_URL, ...params }), { redirect: 'manual' });
      const location = new URL(res.headers.get('location') ?? '', base());
      expect(location.href.startsWith(REDIRECT_URL), location.href).toBe(true);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('code')).toBeNull();
    }
  });

  it('registers public clients only: a client asking for a secret is refused', async () => {
    const res = await register({ client_name: 'Confidential', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'client_secret_basic' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('a code works once, and only with its verifier', async () => {
    const user = await kit.org({ name: 'Coder' });
    const oauth = new MemoryOAuthClient('Code Agent');
    let code = '';
    const { client } = await connectWithOAuth(base(), oauth, async (url) => {
      const back = await consentOverHttp(base(), url, user);
      code = back.get('code')!;
      return back;
    });
    await ok(client, 'list_projects', {});
    const res = await fetch(`${base()}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: oauth.verifier, redirect_uri: REDIRECT_URL, client_id: (oauth.client as { client_id: string }).client_id, resource: `${base()}/mcp` }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('writes no code, access token or refresh token into a log line', async () => {
    const user = await kit.org({ name: 'Logged' });
    const oauth = new MemoryOAuthClient('Log Agent');
    await connectWithOAuth(base(), oauth, (url) => consentOverHttp(base(), url, user));
    expect(oauth.issued.length).toBeGreaterThanOrEqual(3);
    const logs = kit.logs.join('\n');
    expect(logs).toContain('/oauth/token');
    for (const secret of oauth.issued) expect(logs).not.toContain(secret);
  });
});
