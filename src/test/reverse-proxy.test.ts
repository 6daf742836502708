import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './net.js';
import { exited, seedDataDir, startServerProcess } from './server-process.js';
import { eventually } from '../modules/events/realtime.fixtures.js';
import { multipart } from '../modules/files/files.fixtures.js';

// The service behind Debian's nginx with the configuration docs/operations.md gives, on 127.0.0.1
// with a self-signed certificate. Clients connect from 127.0.0.2 and 127.0.0.3 (the whole of
// 127/8 is loopback), so the address the service sees tells the client from the proxy.
const root = path.resolve(import.meta.dirname, '../..');
const nginx = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((p) => existsSync(p));
if (!nginx) console.warn('reverse-proxy.test.ts skipped: nginx is not installed (`apt-get install nginx`; .ci/run installs it)');

/** The ```nginx block of the operator's guide, with this test's ports and certificate put in. */
function documentedConfig(ports: { app: number; http: number; https: number }, dir: string): string {
  const page = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/operations.md has no ```nginx block');
  const swaps: [string, string][] = [
    ['server 127.0.0.1:3000;', `server 127.0.0.1:${ports.app};`],
    ['listen 80;', `listen 127.0.0.1:${ports.http};`],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${ports.https} ssl http2;`],
    ['/etc/letsencrypt/live/workboard.example.com/fullchain.pem', path.join(dir, 'cert.pem')],
    ['/etc/letsencrypt/live/workboard.example.com/privkey.pem', path.join(dir, 'key.pem')],
  ];
  let config = block;
  for (const [from, to] of swaps) {
    if (!config.includes(from)) throw new Error(`the documented nginx configuration no longer has "${from}": update this test with it`);
    config = config.replaceAll(from, to);
  }
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, t)};`).join('\n');
  return `daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${path.join(dir, 'access.log')};
${temp}
${config}
}
`;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true));
    socket.on('error', () => resolve(false));
  });

describe.runIf(Boolean(nginx))('behind nginx, configured as docs/operations.md says', () => {
  const children: ChildProcess[] = [];
  const logs: Record<string, unknown>[] = [];
  let dir: string;
  let base: string;
  let server: ChildProcess;
  // The client, from an address of its own; the certificate is self-signed.
  const from = (localAddress: string) => new Agent({ localAddress, connect: { rejectUnauthorized: false } });
  const client = from('127.0.0.2');
  const other = from('127.0.0.3');
  let session: string;

  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, dispatcher = client) =>
    fetch(`${base}${url}`, {
      method,
      dispatcher,
      headers: { ...(session ? { 'service-session': session } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'workboard-nginx-'));
    // nginx's workers drop root: they must reach the temp directories inside.
    chmodSync(dir, 0o755);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    const ports = { app: await freePort(), http: await freePort(), https: await freePort() };
    base = `https://127.0.0.1:${ports.https}`;
    writeFileSync(path.join(dir, 'nginx.conf'), documentedConfig(ports, dir));
    const proxy = spawn(nginx!, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(proxy);
    let proxyErrors = '';
    proxy.stderr!.on('data', (d) => (proxyErrors += d));
    // Its own embedded database, whatever the suite runs on: rate-limit counts of an earlier run
    // on a shared PostgreSQL would still hold this test's addresses.
    server = await startServerProcess(ports.app, {
      DATABASE_URL: '',
      DATA_DIR: seedDataDir(path.join(dir, 'data')),
      LOG_LEVEL: 'info',
      TRUST_PROXY: '127.0.0.1',
      PUBLIC_URL: base,
      AUTH_RATE_LIMIT_PER_MINUTE: '3',
      JOBS_ENABLED: 'false',
    }, children);
    let buffered = '';
    server.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
    });
    await eventually(async () => {
      if (proxy.exitCode !== null) throw new Error(`nginx exited: ${proxyErrors} ${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
      expect(await listening(ports.https)).toBe(true);
    }, 20_000);
    const res = await call('POST', '/auth/register', { email: `proxy-${Date.now()}@example.test`, password: 'correct horse battery staple', name: 'Proxied' });
    expect(res.status).toBe(201);
    session = ((await res.json()) as { session: string }).session;
  }, 120_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited(child);
      }
    }
    await Promise.all([client.close(), other.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers a write to an SSE stream and a WebSocket within 2 s, both through the proxy', async () => {
    const abort = new AbortController();
    const stream = await fetch(`${base}/events?types=space.created`, { dispatcher: client, headers: { 'service-session': session }, signal: abort.signal });
    expect(stream.status).toBe(200);
    let text = '';
    void (async () => {
      for await (const chunk of stream.body!) text += Buffer.from(chunk).toString('utf8');
    })().catch(() => {});
    await eventually(() => expect(text).toContain('event: ready'));

    const socket = new WebSocket(`${base.replace('https', 'wss')}/events/ws`, { headers: { 'service-session': session }, rejectUnauthorized: false, localAddress: '127.0.0.2' });
    const frames: { type: string; id?: number; payload?: Record<string, unknown> }[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
    await eventually(() => expect(frames.some((f) => f.type === 'ready')).toBe(true));
    socket.send(JSON.stringify({ type: 'subscribe', types: ['space.created'] }));
    await eventually(() => expect(frames.some((f) => f.type === 'subscribed')).toBe(true));

    const written = await call('POST', '/spaces', { name: 'Through nginx' });
    expect(written.status).toBe(201);
    const space = (await written.json()) as { id: number };
    const at = Date.now();
    await eventually(() => {
      expect(text).toMatch(new RegExp(`event: space\\.created\\ndata: .*"spaceId":${space.id}[,}]`));
      expect(frames.find((f) => f.type === 'space.created')).toMatchObject({ spaceId: space.id });
    }, 2_000);
    expect(Date.now() - at).toBeLessThan(2_000);
    socket.close();
    abort.abort();
  });

  it('takes the client address from X-Forwarded-For: the logs and the rate limiter see the client, not the proxy, and a forged header changes nothing', async () => {
    const login = (dispatcher: Agent, headers: Record<string, string> = {}) =>
      fetch(`${base}/auth/login`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ email: `nobody-${Math.random()}@example.test`, password: 'wrong password' }),
      });
    const first = await login(client, { 'x-request-id': 'through-nginx-1' });
    expect(first.status).toBe(401);
    await eventually(() => expect(logs.find((l) => l.reqId === 'through-nginx-1' && l.req)).toMatchObject({ req: { remoteAddress: '127.0.0.2' } }));
    // 127.0.0.2 spent its 3 attempts (registering was one); another address, or a forged one, is a different story.
    let limited = 0;
    for (let i = 0; i < 3 && limited === 0; i++) if ((await login(client)).status === 429) limited++;
    expect(limited).toBe(1);
    expect((await login(client, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(429);
    expect((await login(other)).status).toBe(401);
  });

  it('passes a 50 MB upload', async () => {
    const space = (await (await call('POST', '/spaces', { name: 'Uploads' })).json()) as { id: number };
    const project = (await (await call('POST', '/projects', { spaceId: space.id, name: 'P' })).json()) as { id: number };
    const stage = (await (await call('POST', `/projects/${project.id}/stages`, { name: 'S', order: 0, tasks: [] })).json()) as { id: number };
    const { task } = (await (await call('POST', '/tasks', { name: 'T', stageId: stage.id, order: 0 })).json()) as { task: { id: number } };
    const size = 50_000_000;
    const form = multipart([{ name: 'files[]', data: Buffer.alloc(size, 7), filename: 'big.bin' }, { name: 'text', data: 'a large file' }]);
    const res = await fetch(`${base}/tasks/${task.id}/messages`, { method: 'POST', dispatcher: client, headers: { 'service-session': session, ...form.headers }, body: form.payload });
    const body = await res.text();
    expect(res.status, body).toBe(201);
    expect((JSON.parse(body) as { attachments: { size: number }[] }).attachments).toMatchObject([{ size }]);
  }, 120_000);
});
