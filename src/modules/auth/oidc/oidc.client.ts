import type * as OpenId from 'openid-client';

// Loaded with the first sign-in, not at start: most servers never configure single sign-on, and the
// library with its JOSE code holds about 6 MB (issue 42).
const openId = () => import('openid-client');
import type { Config } from '../../../config.js';
import { AppError } from '../../../platform/errors.js';
import { allowedHostsOf, guardedFetch, isAllowListed, type OutboundSubject, type RefusalLog } from '../../../platform/outbound.js';
import type { OidcSettings } from './oidc.policy.js';

const SUBJECT: OutboundSubject = { label: 'single sign-on', code: 'OUTBOUND_URL_FORBIDDEN' };

export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What the provider says about the person, from the validated ID token (and userinfo for what it leaves out). */
export type Claims = Record<string, unknown> & { sub: string };

const providerFailed = (what: string) => new AppError('OIDC_PROVIDER_FAILED', `the identity provider could not be reached or answered wrongly (${what})`);

/**
 * The relying party: discovery once (retried after a failure), every call through the outbound guard.
 * The ID token's signature is checked against the provider's JWKS even though it comes over TLS
 * (enableNonRepudiationChecks): the issue asks for it, and it keeps a proxy from minting tokens.
 */
export class OidcClient {
  private discovered: Promise<OpenId.Configuration> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly config: Pick<Config, 'outboundAllowedHosts' | 'webhookAllowedHosts'>,
    private readonly log: RefusalLog & { warn(details: Record<string, unknown>, message: string): void },
  ) {}

  private provider(): Promise<OpenId.Configuration> {
    this.discovered ??= this.discover().catch((err: unknown) => {
      this.discovered = null;
      this.log.warn({ reason: (err as Error).message }, 'single sign-on: discovery failed');
      throw providerFailed('discovery');
    });
    return this.discovered;
  }

  private async discover(): Promise<OpenId.Configuration> {
    const issuer = new URL(this.settings.issuer);
    const allowedHosts = allowedHostsOf(this.config);
    // Plain http only where the operator allowed a local host (on-premises providers, tests).
    const insecure = issuer.protocol === 'http:' && isAllowListed(issuer, allowedHosts);
    const client = await openId();
    return client.discovery(issuer, this.settings.clientId, undefined, client.ClientSecretBasic(this.settings.clientSecret), {
      [client.customFetch]: guardedFetch({ allowedHosts, subject: SUBJECT, log: this.log }) as OpenId.CustomFetch,
      execute: insecure ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks],
      timeout: 10,
    });
  }

  async authorizationUrl(checks: SignInChecks): Promise<string> {
    const provider = await this.provider();
    const client = await openId();
    const scope = [...new Set(['openid', ...this.settings.scopes.split(/\s+/).filter(Boolean)])].join(' ');
    return client
      .buildAuthorizationUrl(provider, {
        redirect_uri: this.settings.redirectUri,
        scope,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /**
   * Redeems the code (with the PKCE verifier) and validates the ID token: signature by the JWKS,
   * iss, aud, exp, iat and nonce, and the state of the callback. Any failure is one 401 to the
   * caller; the reason goes to the log (never the code or a token).
   */
  async redeem(callbackParams: Record<string, string>, checks: SignInChecks, wanted: string[]): Promise<Claims> {
    const provider = await this.provider();
    const client = await openId();
    const currentUrl = new URL(this.settings.redirectUri);
    for (const [k, v] of Object.entries(callbackParams)) currentUrl.searchParams.set(k, v);
    let claims: Claims;
    let accessToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(provider, currentUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims()! } as Claims;
      accessToken = tokens.access_token;
    } catch (err) {
      const e = err as { code?: unknown; error?: unknown; message?: string };
      this.log.warn({ reason: e.message, code: e.code, error: e.error }, 'single sign-on: the sign-in was refused');
      throw new AppError('OIDC_SIGN_IN_FAILED', 'the identity provider’s answer could not be validated: sign in again');
    }
    // Some providers keep the email (or the role claim) out of the ID token; userinfo, bound to the same subject, has it.
    if (wanted.some((k) => claims[k] === undefined) && provider.serverMetadata().userinfo_endpoint) {
      try {
        const info = await client.fetchUserInfo(provider, accessToken, claims.sub);
        for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
      } catch (err) {
        this.log.warn({ reason: (err as Error).message }, 'single sign-on: userinfo failed');
        throw providerFailed('userinfo');
      }
    }
    return claims;
  }

  /** The provider's end-session URL, or null when it offers none (or cannot be reached now). */
  async endSessionUrl(): Promise<string | null> {
    const provider = await this.provider().catch(() => null);
    if (!provider?.serverMetadata().end_session_endpoint) return null;
    const client = await openId();
    return client
      .buildEndSessionUrl(provider, { client_id: this.settings.clientId, post_logout_redirect_uri: this.settings.postLogoutRedirectUri })
      .toString();
  }

  get issuer(): string {
    return this.settings.issuer;
  }
}
