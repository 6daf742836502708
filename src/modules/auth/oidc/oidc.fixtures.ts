import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../../config.js';
import type { TestKit } from '../../../test/app.js';

// Test-only helpers for the single sign-on tests (no production code imports this): a real OpenID
// provider (the oidc-provider package) on 127.0.0.1, with one client and accounts set per test.

export const APP_URL = 'https://app.example.test';
export const REDIRECT_URI = `${APP_URL}/auth/oidc/callback`;

export interface Account {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

/** Changes made to the ID token on its way out of the token endpoint, re-signed (with `key`, or the provider's own). */
export interface Tamper {
  claims?: Record<string, unknown>;
  key?: KeyObject;
}

export class TestProvider {
  readonly clientId = 'workboard-test';
  readonly clientSecret = `cs-${randomBytes(16).toString('hex')}`;
  readonly accounts = new Map<string, Account>();
  /** Who signs in at the provider's login prompt next. */
  nextAccount = '';
  tamper: Tamper | null = null;
  /** Every code and token the provider handed out, for the log check. */
  readonly issued: string[] = [];
  private readonly key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  private server: http.Server | null = null;
  private provider: Provider | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const accounts = this.accounts;
    this.provider = new Provider(this.url, {
      clients: [
        {
          client_id: this.clientId,
          client_secret: this.clientSecret,
          redirect_uris: [REDIRECT_URI],
          post_logout_redirect_uris: [APP_URL],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      jwks: { keys: [{ ...this.key.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      scopes: ['openid', 'email', 'profile', 'groups'],
      findAccount: (_ctx, id) => (accounts.has(id) ? { accountId: id, claims: () => ({ sub: id, ...accounts.get(id) }) } : undefined),
      // Consent is taken as given: the test drives the login prompt only.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid email profile groups');
        await grant.save();
        return grant;
      },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    });
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const provider = this.provider!;
    if (req.url?.startsWith('/interaction/')) {
      await provider.interactionDetails(req, res);
      return provider.interactionFinished(req, res, { login: { accountId: this.nextAccount } }, { mergeWithLastSubmission: false });
    }
    if (req.url === '/token' && req.method === 'POST') this.watchTokens(res);
    provider.callback()(req, res);
  }

  /** Records what the token endpoint answers, and applies `tamper` to its ID token. */
  private watchTokens(res: http.ServerResponse): void {
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) return end(chunk);
      const body = JSON.parse(chunk.toString()) as Record<string, string>;
      if (body.id_token && this.tamper) body.id_token = this.resign(body.id_token, this.tamper);
      for (const k of ['id_token', 'access_token', 'refresh_token']) if (body[k]) this.issued.push(body[k]);
      const out = JSON.stringify(body);
      res.setHeader('content-length', Buffer.byteLength(out));
      return end(out);
    }) as typeof res.end;
  }

  private resign(token: string, tamper: Tamper): string {
    const [header, payload] = token.split('.');
    const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...tamper.claims };
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${createSign('RSA-SHA256').update(input).sign(tamper.key ?? this.key).toString('base64url')}`;
  }

  /**
   * A browser at the provider: opens the authorization URL, signs in as `nextAccount` and follows
   * the redirects (with the provider's cookies) until the one back to the web client's callback page.
   */
  async authorize(authorizationUrl: string): Promise<URLSearchParams> {
    const jar = new Map<string, string>();
    let url = authorizationUrl;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        jar.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`provider answered ${res.status} without a redirect: ${await res.text()}`);
      const next = new URL(location, url);
      if (next.href.startsWith(REDIRECT_URI)) {
        const code = next.searchParams.get('code');
        if (code) this.issued.push(code);
        return next.searchParams;
      }
      url = next.href;
    }
    throw new Error('too many redirects at the provider');
  }
}

/** A provider for the file's tests, and the config overrides that point the service at it. */
export function useTestProvider(extra: Partial<Config> = {}): { idp: TestProvider; overrides: () => Partial<Config> } {
  const idp = new TestProvider();
  beforeAll(() => idp.start());
  afterAll(() => idp.stop());
  const overrides = (): Partial<Config> => ({
    oidcIssuer: idp.url,
    oidcClientId: idp.clientId,
    oidcClientSecret: idp.clientSecret,
    oidcDisplayName: 'Test IdP',
    oidcRedirectUri: REDIRECT_URI,
    oidcPostLogoutRedirectUri: APP_URL,
    outboundAllowedHosts: ['127.0.0.1'],
    appUrl: APP_URL,
    ...extra,
  });
  return { idp, overrides };
}

/** The whole code flow: start here, sign in at the provider as `account`, complete here. */
export async function signIn(t: TestKit, idp: TestProvider, account: string): Promise<LightMyRequestResponse> {
  idp.nextAccount = account;
  const start = await t.as(null).get('/auth/oidc/authorization-url');
  if (start.statusCode !== 200) throw new Error(`start failed: ${start.statusCode} ${start.body}`);
  const { url, transaction } = start.json() as { url: string; transaction: string };
  const back = await idp.authorize(url);
  return t.as(null).post('/auth/oidc/callback', { transaction, code: back.get('code'), state: back.get('state'), iss: back.get('iss') ?? undefined });
}
