import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A small OAuth 2.0 server and Drive v3 API for tests, on 127.0.0.1. It is as strict as the real
 * ones where the service could go wrong: PKCE (the verifier must hash to the challenge), single-use
 * codes bound to their redirect URI, client authentication, short-lived access tokens answered 401
 * once expired, refresh tokens that can be revoked. Files live per account.
 */

interface StoredFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  modifiedTime: string;
}

interface Code {
  account: string;
  challenge: string;
  redirectUri: string;
  scope: string;
}

export class FakeDrive {
  readonly clientId = 'fake-client-id';
  readonly clientSecret = `secret-${randomBytes(8).toString('hex')}`;
  /** Access token lifetime, in seconds (short, so tests see refreshes). */
  accessLifetimeSec = 60;
  /** Every token the fake issued, so tests can look for them in responses, logs and data. */
  readonly issued: string[] = [];
  readonly revocations: string[] = [];
  refreshes = 0;
  uploads = 0;
  /** Revocation answers by closing the connection (the provider cannot be reached). */
  revokeDown = false;
  url = '';
  private server: http.Server | null = null;
  private readonly codes = new Map<string, Code>();
  private readonly access = new Map<string, { account: string; expiresAt: number }>();
  private readonly refresh = new Map<string, string>();
  private readonly files = new Map<string, Map<string, StoredFile>>();
  private nextId = 1;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.route(req, res).catch((err) => this.send(res, 500, { error: { message: String(err) } })));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A file in an account's drive; returns its id. */
  addFile(account: string, file: { name: string; mimeType?: string; content?: Buffer | string; parents?: string[] }): string {
    const id = `f${this.nextId++}${randomBytes(4).toString('hex')}`;
    const content = Buffer.from(file.content ?? '');
    this.drive(account).set(id, { id, name: file.name, mimeType: file.mimeType ?? 'text/plain', parents: file.parents ?? ['root'], content, modifiedTime: new Date().toISOString() });
    return id;
  }

  fileContent(account: string, id: string): Buffer | undefined {
    return this.drive(account).get(id)?.content;
  }

  /** Ends every access token now (the next Drive call answers 401 although the service thinks it valid). */
  expireAccessTokens(): void {
    for (const token of this.access.values()) token.expiresAt = 0;
  }

  /** The user revokes the service's access in their account settings. */
  revokeAll(): void {
    this.refresh.clear();
    this.access.clear();
  }

  /**
   * The consent screen: the user (an account) approves, or denies, an authorization URL. Answers
   * the query the provider redirects the browser to (code and state, or an error).
   */
  consent(authorizationUrl: string, account: string, deny = false): URLSearchParams {
    const url = new URL(authorizationUrl);
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
      throw new Error(`fake drive: bad authorization request ${url.search}`);
    }
    if (deny) return new URLSearchParams({ error: 'access_denied', state: q.get('state') ?? '' });
    const code = `code-${randomBytes(12).toString('hex')}`;
    this.codes.set(code, { account, challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, scope: q.get('scope')! });
    return new URLSearchParams({ code, state: q.get('state') ?? '', scope: q.get('scope')! });
  }

  private drive(account: string): Map<string, StoredFile> {
    let drive = this.files.get(account);
    if (!drive) this.files.set(account, (drive = new Map()));
    return drive;
  }

  private issueAccess(account: string): { access_token: string; expires_in: number; token_type: string } {
    const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
    this.issued.push(token);
    this.access.set(token, { account, expiresAt: Date.now() + this.accessLifetimeSec * 1000 });
    return { access_token: token, expires_in: this.accessLifetimeSec, token_type: 'Bearer' };
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'POST' && url.pathname === '/token') return this.token(await form(req), res);
    if (req.method === 'POST' && url.pathname === '/revoke') {
      const body = await form(req);
      if (this.revokeDown) return void req.socket.destroy();
      const token = body.get('token') ?? '';
      this.revocations.push(token);
      this.refresh.delete(token);
      this.access.delete(token);
      return this.send(res, 200, {});
    }
    const account = this.bearer(req);
    if (!account) return this.send(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
    if (req.method === 'GET' && url.pathname === '/drive/v3/about') return this.send(res, 200, { user: { emailAddress: account } });
    if (req.method === 'POST' && url.pathname === '/upload/drive/v3/files') return this.upload(req, res, account);
    if (req.method === 'GET' && url.pathname === '/drive/v3/files') return this.list(url, res, account);
    const one = /^\/drive\/v3\/files\/([^/]+)$/.exec(url.pathname);
    const file = one ? this.drive(account).get(decodeURIComponent(one[1]!)) : undefined;
    if (one && !file) return this.send(res, 404, { error: { code: 404, message: 'File not found.' } });
    if (req.method === 'DELETE' && file) {
      this.drive(account).delete(file.id);
      res.writeHead(204);
      return void res.end();
    }
    if (req.method === 'GET' && file) {
      if (url.searchParams.get('alt') !== 'media') return this.send(res, 200, this.meta(file));
      res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.content.length) });
      return void res.end(file.content);
    }
    this.send(res, 404, { error: { code: 404, message: 'no such endpoint' } });
  }

  private token(body: URLSearchParams, res: http.ServerResponse): void {
    if (body.get('client_id') !== this.clientId || body.get('client_secret') !== this.clientSecret) return this.send(res, 401, { error: 'invalid_client' });
    if (body.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(body.get('code') ?? '');
      this.codes.delete(body.get('code') ?? '');
      const verifier = body.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!code || code.redirectUri !== body.get('redirect_uri') || challenge !== code.challenge) return this.send(res, 400, { error: 'invalid_grant' });
      const refresh = `1//fake-${randomBytes(16).toString('hex')}`;
      this.issued.push(refresh);
      this.refresh.set(refresh, code.account);
      return this.send(res, 200, { ...this.issueAccess(code.account), refresh_token: refresh, scope: code.scope });
    }
    if (body.get('grant_type') === 'refresh_token') {
      const account = this.refresh.get(body.get('refresh_token') ?? '');
      if (!account) return this.send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      this.refreshes++;
      return this.send(res, 200, this.issueAccess(account));
    }
    this.send(res, 400, { error: 'unsupported_grant_type' });
  }

  private bearer(req: http.IncomingMessage): string | null {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const entry = token ? this.access.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry.account : null;
  }

  /** The subset of Drive's query language the service writes: parents, name contains, trashed. */
  private list(url: URL, res: http.ServerResponse, account: string): void {
    const q = url.searchParams.get('q') ?? '';
    const parent = /'([^']+)' in parents/.exec(q)?.[1];
    const contains = /name contains '((?:[^'\\]|\\.)*)'/.exec(q)?.[1]?.replace(/\\(.)/g, '$1');
    const all = [...this.drive(account).values()]
      .filter((f) => (parent ? f.parents.includes(parent) : true) && (contains === undefined ? true : f.name.toLowerCase().includes(contains.toLowerCase())))
      .sort((a, b) => a.name.localeCompare(b.name));
    const size = Math.min(Number(url.searchParams.get('pageSize') ?? 100), 1000);
    const from = Number(url.searchParams.get('pageToken') ?? 0);
    const page = all.slice(from, from + size);
    this.send(res, 200, { files: page.map((f) => this.meta(f)), ...(from + size < all.length ? { nextPageToken: String(from + size) } : {}) });
  }

  /** multipart/related: a JSON metadata part, then the content (parsed whole: this is a test server). */
  private async upload(req: http.IncomingMessage, res: http.ServerResponse, account: string): Promise<void> {
    const boundary = /boundary=([^;]+)/.exec(req.headers['content-type'] ?? '')?.[1];
    const body = await raw(req);
    if (!boundary) return this.send(res, 400, { error: { code: 400, message: 'no boundary' } });
    const parts = split(body, boundary);
    if (parts.length !== 2) return this.send(res, 400, { error: { code: 400, message: `expected 2 parts, got ${parts.length}` } });
    const meta = JSON.parse(parts[0]!.body.toString('utf8')) as { name: string; mimeType?: string; parents?: string[] };
    this.uploads++;
    const id = this.addFile(account, { name: meta.name, mimeType: meta.mimeType, content: parts[1]!.body, parents: meta.parents });
    this.send(res, 200, this.meta(this.drive(account).get(id)!));
  }

  private meta(f: StoredFile) {
    const folder = f.mimeType === 'application/vnd.google-apps.folder';
    return {
      id: f.id,
      name: f.name,
      mimeType: f.mimeType,
      ...(folder ? {} : { size: String(f.content.length) }),
      modifiedTime: f.modifiedTime,
      webViewLink: `https://drive.example.test/file/d/${f.id}/view`,
    };
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}

async function raw(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function form(req: http.IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await raw(req)).toString('utf8'));
}

function split(body: Buffer, boundary: string): Array<{ headers: string; body: Buffer }> {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ headers: string; body: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    const chunk = body.subarray(start + 2, next - 2);
    const gap = chunk.indexOf('\r\n\r\n');
    parts.push({ headers: chunk.subarray(0, gap).toString('utf8'), body: chunk.subarray(gap + 4) });
    at = next;
  }
  return parts;
}
