import { freePort } from '../../test/net.js';
import { beforeAll, expect } from 'vitest';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { useTestApp, type TestKit, type TestUser } from '../../test/app.js';
import type { Config } from '../../config.js';

// Test-only helpers for the OAuth tests (no production code imports this).

export const REDIRECT_URL = 'http://127.0.0.1:9/callback';
export const OAUTH_TEST_SECRETS_KEY = Buffer.alloc(32, 45).toString('base64');

/**
 * The file's app on a real port of 127.0.0.1 that is also its PUBLIC_URL: the SDK checks that the
 * protected-resource metadata names the URL it connects to. The port is chosen before the app is
 * built. SECRETS_KEY is set so the authorization server has keys on PostgreSQL too, and is the same
 * in every OAuth test file: they share the worker's database, and so the signing key stored there.
 */
export function useOAuthApp(overrides: Partial<Config> = {}): { kit: TestKit; base: () => string } {
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
  });
  const kit = useTestApp(() => ({ publicUrl: `http://127.0.0.1:${port}`, secretsKey: OAUTH_TEST_SECRETS_KEY, ...overrides }));
  beforeAll(async () => {
    await kit.app.listen({ port, host: '127.0.0.1' });
  });
  return { kit, base: () => `http://127.0.0.1:${port}` };
}

/** The SDK's OAuth client provider, in memory: what a real MCP client keeps in its settings. */
export class MemoryOAuthClient implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  /** Every code and token handed to this client, for the log check. */
  readonly issued: string[] = [];

  constructor(
    readonly name = 'Test OAuth Agent',
    readonly scope = 'tasks:read tasks:write docs:read',
  ) {}

  get redirectUrl(): string {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: this.scope };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.issued.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A minimal cookie jar (names only: every cookie goes everywhere, which the provider's path checks do not mind). */
export class Jar {
  readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  }
  get header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * A browser without a browser: follows the authorization URL to the consent page, answers it as
 * `user` through the two API calls the page makes, and follows the redirects back to the client's
 * redirect URI, whose query it answers (code, state, iss; or error).
 */
export async function consentOverHttp(base: string, authorizationUrl: URL, user: TestUser, allow = true): Promise<URLSearchParams> {
  const jar = new Jar();
  const go = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header } });
    jar.take(res);
    return res;
  };
  let res = await go(authorizationUrl.href);
  let location = new URL(res.headers.get('location') ?? '', base);
  expect(location.pathname, await res.text()).toMatch(/^\/oauth\/interaction\//);
  res = await go(location.href);
  location = new URL(res.headers.get('location') ?? '', base);
  const uid = /^\/app\/oauth\/([^/]+)$/.exec(location.pathname)?.[1];
  expect(uid).toBeTruthy();
  const headers = { cookie: jar.header, 'service-session': user.session, 'content-type': 'application/json' };
  const details = await fetch(`${base}/oauth/interaction/${uid}/details`, { headers });
  expect(details.status, await details.clone().text()).toBe(200);
  const decision = await fetch(`${base}/oauth/interaction/${uid}/decision`, { method: 'POST', headers, body: JSON.stringify({ allow }) });
  expect(decision.status, await decision.clone().text()).toBe(200);
  let next = new URL(((await decision.json()) as { redirectTo: string }).redirectTo, base);
  for (let hop = 0; hop < 5; hop++) {
    if (next.href.startsWith(REDIRECT_URL)) return next.searchParams;
    res = await go(next.href);
    next = new URL(res.headers.get('location') ?? '', base);
  }
  throw new Error('no redirect back to the client');
}

/** Connects the SDK client with its OAuth provider: discovery and registration, then the consent (by `consent`), then the code exchange. */
export async function connectWithOAuth(base: string, oauth: MemoryOAuthClient, consent: (url: URL) => Promise<URLSearchParams>, name = 'Test OAuth Agent') {
  const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: oauth });
  await expect(new Client({ name, version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(oauth.authorizationUrl).toBeTruthy();
  const back = await consent(oauth.authorizationUrl!);
  const code = back.get('code');
  expect(code, back.toString()).toBeTruthy();
  oauth.issued.push(code!);
  await first.finishAuth(code!);
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: oauth });
  await client.connect(transport);
  return { client, transport };
}
