import { Readable } from 'node:stream';
import type * as OAuth from 'oauth4webapi';
import { allowedHostsOf, guardedFetch, isAllowListed, type RefusalLog } from '../../platform/outbound.js';

/**
 * The provider's two protocols: OAuth 2.0 (authorization code + PKCE, refresh, revocation) through
 * oauth4webapi, and the Drive v3 REST API with the access token as a bearer. Every connection goes
 * through the shared outbound guard; tokens never appear in an error message this file raises.
 */

export interface DriveConfig {
  cloudDriveClientId: string;
  cloudDriveClientSecret: string;
  cloudDriveAuthUrl: string;
  cloudDriveTokenUrl: string;
  cloudDriveRevokeUrl: string;
  cloudDriveApiUrl: string;
  cloudDriveRedirectUri: string;
  outboundAllowedHosts: readonly string[];
}

/**
 * `drive.file`: full access to the files the service creates (uploads, their downloads);
 * `drive.metadata.readonly`: names, types and links of every file, which browsing, search and
 * attaching need. Neither lets the service read the content of files it did not create.
 */
export const DRIVE_SCOPES = ['https://www.googleapis.com/auth/drive.file', 'https://www.googleapis.com/auth/drive.metadata.readonly'];

/** What the provider answered with a status we pass on (404, 403) or fail on (502). */
export class DriveError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The provider refused the refresh token (revoked, expired): only a new authorization helps. */
export class GrantRevokedError extends Error {}

export interface TokenSet {
  accessToken: string;
  /** Absent on a refresh that keeps the old one. */
  refreshToken: string | null;
  expiresInSec: number;
  scopes: string[];
}

export interface DriveFileMeta {
  id: string;
  name: string;
  mimeType: string;
  size?: string;
  modifiedTime?: string;
  webViewLink?: string;
}

export const FILE_FIELDS = 'id,name,mimeType,size,modifiedTime,webViewLink';

// Loaded by the first cloud-drive request (cloud-drive.routes.ts), not at start (issue 42).
let loaded: typeof OAuth | undefined;
export const loadOAuth = async (): Promise<typeof OAuth> => (loaded ??= await import('oauth4webapi'));

export class DriveClient {
  private readonly fetch: typeof globalThis.fetch;
  private readonly as: OAuth.AuthorizationServer;
  private readonly client: OAuth.Client;
  private readonly auth: OAuth.ClientAuth;
  private readonly options: OAuth.TokenEndpointRequestOptions;

  constructor(
    private readonly config: DriveConfig,
    private readonly oauth: typeof OAuth,
    log?: RefusalLog,
  ) {
    const allowedHosts = allowedHostsOf(config);
    this.fetch = guardedFetch({ allowedHosts, subject: { label: 'the cloud drive', code: 'OUTBOUND_URL_FORBIDDEN' }, log });
    this.as = {
      issuer: new URL(config.cloudDriveAuthUrl).origin,
      authorization_endpoint: config.cloudDriveAuthUrl,
      token_endpoint: config.cloudDriveTokenUrl,
      revocation_endpoint: config.cloudDriveRevokeUrl,
    };
    this.client = { client_id: config.cloudDriveClientId };
    this.auth = this.oauth.ClientSecretPost(config.cloudDriveClientSecret);
    // http only where the shared outbound rules allow it (on-premises servers, tests).
    const insecure = [config.cloudDriveTokenUrl, config.cloudDriveRevokeUrl].some((u) => isAllowListed(new URL(u), allowedHosts));
    this.options = { [this.oauth.customFetch]: this.fetch, [this.oauth.allowInsecureRequests]: insecure, signal: () => AbortSignal.timeout(30_000) };
  }

  /** The provider's consent page: offline access (a refresh token), PKCE S256, our signed state. */
  authorizationUrl(state: string, codeChallenge: string): string {
    const url = new URL(this.config.cloudDriveAuthUrl);
    url.search = new URLSearchParams({
      client_id: this.config.cloudDriveClientId,
      redirect_uri: this.config.cloudDriveRedirectUri,
      response_type: 'code',
      scope: DRIVE_SCOPES.join(' '),
      access_type: 'offline',
      // Google sends a refresh token only on consent; a reconnect must get a new one.
      prompt: 'consent',
      include_granted_scopes: 'true',
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  }

  /** The callback's query as the provider meant it: a code, or its error (the caller checked the state). */
  codeOf(query: URLSearchParams): { params: URLSearchParams } | { error: string } {
    try {
      return { params: this.oauth.validateAuthResponse(this.as, this.client, query, this.oauth.skipStateCheck) };
    } catch (err) {
      const error = err instanceof this.oauth.AuthorizationResponseError ? err.error : 'invalid_response';
      return { error: /^[\w.-]{1,64}$/.test(error) ? error : 'invalid_response' };
    }
  }

  async exchangeCode(callback: URLSearchParams, codeVerifier: string): Promise<TokenSet> {
    const res = await this.oauth.authorizationCodeGrantRequest(this.as, this.client, this.auth, callback, this.config.cloudDriveRedirectUri, codeVerifier, this.options);
    return tokenSet(await this.oauth.processAuthorizationCodeResponse(this.as, this.client, res));
  }

  async refresh(refreshToken: string): Promise<TokenSet> {
    try {
      const res = await this.oauth.refreshTokenGrantRequest(this.as, this.client, this.auth, refreshToken, this.options);
      return tokenSet(await this.oauth.processRefreshTokenResponse(this.as, this.client, res));
    } catch (err) {
      if (err instanceof this.oauth.ResponseBodyError && err.error === 'invalid_grant') throw new GrantRevokedError('the provider refused the refresh token');
      throw new DriveError(502, `token refresh failed: ${describe(err)}`);
    }
  }

  /** RFC 7009: revoking the refresh token ends the access tokens it issued too. */
  async revoke(token: string): Promise<void> {
    const res = await this.oauth.revocationRequest(this.as, this.client, this.auth, token, this.options);
    await this.oauth.processRevocationResponse(res);
  }

  async accountEmail(accessToken: string): Promise<string | null> {
    const about = await this.json<{ user?: { emailAddress?: string } }>(accessToken, `/drive/v3/about?fields=${encodeURIComponent('user(emailAddress)')}`);
    return about.user?.emailAddress ?? null;
  }

  list(accessToken: string, query: { q: string; pageToken?: string; pageSize: number }): Promise<{ files: DriveFileMeta[]; nextPageToken?: string }> {
    const params = new URLSearchParams({ q: query.q, pageSize: String(query.pageSize), fields: `nextPageToken,files(${FILE_FIELDS})`, orderBy: 'folder,name' });
    if (query.pageToken) params.set('pageToken', query.pageToken);
    return this.json(accessToken, `/drive/v3/files?${params}`);
  }

  metadata(accessToken: string, fileId: string): Promise<DriveFileMeta> {
    return this.json(accessToken, `/drive/v3/files/${encodeURIComponent(fileId)}?fields=${FILE_FIELDS}`);
  }

  /** The content as the provider streams it (the caller pipes the body on). */
  async media(accessToken: string, fileId: string): Promise<Response> {
    const res = await this.call(accessToken, `/drive/v3/files/${encodeURIComponent(fileId)}?alt=media`, {}, true);
    await failUnlessOk(res);
    return res;
  }

  /**
   * A multipart/related upload (metadata part, then the content) whose body is streamed from
   * `content` as it arrives: the file is never held whole in memory.
   */
  async upload(accessToken: string, file: { name: string; mimeType: string; folderId?: string }, content: AsyncIterable<Uint8Array>): Promise<DriveFileMeta> {
    const boundary = `workboard-${crypto.randomUUID()}`;
    const metadata = JSON.stringify({ name: file.name, mimeType: file.mimeType, ...(file.folderId ? { parents: [file.folderId] } : {}) });
    const head = `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${metadata}\r\n--${boundary}\r\nContent-Type: ${file.mimeType}\r\n\r\n`;
    const body = Readable.from(
      (async function* () {
        yield Buffer.from(head);
        for await (const chunk of content) yield chunk;
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      })(),
    );
    const res = await this.call(accessToken, `/upload/drive/v3/files?uploadType=multipart&fields=${FILE_FIELDS}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as unknown as RequestInit, true);
    await failUnlessOk(res);
    return (await res.json()) as DriveFileMeta;
  }

  /** Deletes a file the service created (an upload whose request failed later on). */
  async remove(accessToken: string, fileId: string): Promise<void> {
    const res = await this.call(accessToken, `/drive/v3/files/${encodeURIComponent(fileId)}`, { method: 'DELETE' });
    if (res.status !== 404) await failUnlessOk(res);
  }

  private async json<T>(accessToken: string, path: string): Promise<T> {
    const res = await this.call(accessToken, path);
    await failUnlessOk(res);
    return (await res.json()) as T;
  }

  /** `streaming`: no overall deadline, a large file may take long to pass (the socket's own timeouts still apply). */
  private async call(accessToken: string, path: string, init: RequestInit = {}, streaming = false): Promise<Response> {
    try {
      return await this.fetch(`${this.config.cloudDriveApiUrl}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${accessToken}` },
        ...(streaming ? {} : { signal: AbortSignal.timeout(30_000) }),
      });
    } catch (err) {
      throw new DriveError(502, `the cloud drive could not be reached: ${describe(err)}`);
    }
  }
}

/** A 401 the caller answers by refreshing; other statuses become a DriveError with the provider's reason. */
export class DriveUnauthorizedError extends DriveError {}

async function failUnlessOk(res: Response): Promise<void> {
  if (res.ok) return;
  const data = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  const reason = typeof data?.error?.message === 'string' ? data.error.message.slice(0, 200) : `HTTP ${res.status}`;
  if (res.status === 401) throw new DriveUnauthorizedError(401, reason);
  throw new DriveError(res.status, reason);
}

function tokenSet(res: OAuth.TokenEndpointResponse): TokenSet {
  return {
    accessToken: res.access_token,
    refreshToken: res.refresh_token ?? null,
    // A provider that does not say: an hour, Google's.
    expiresInSec: typeof res.expires_in === 'number' && res.expires_in > 0 ? res.expires_in : 3600,
    scopes: typeof res.scope === 'string' ? res.scope.split(' ').filter(Boolean) : DRIVE_SCOPES,
  };
}

/** An error's name and message, without anything the request carried. */
function describe(err: unknown): string {
  // Only a loaded oauth4webapi throws its errors.
  if (loaded && err instanceof loaded.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description.slice(0, 200)}` : ''}`;
  const e = err as { code?: string; message?: string };
  return e.code ?? e.message?.slice(0, 200) ?? 'unknown error';
}
