import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './net.js';

// `npm start` as an operator runs it: npm → (sh) → the compiled server. On PostgreSQL runs the
// inherited DATABASE_URL points it there; DATA_DIR then only holds files.
const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-start-'));
let npm: ChildProcess | null = null;

afterAll(() => {
  // Only if the test failed half-way: its own process group, nothing else.
  if (npm?.pid && npm.exitCode === null) {
    try {
      process.kill(-npm.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** ppid of every live (non-zombie) process, read from /proc. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') table.set(Number(name), Number(ppid));
    } catch {
      // exited while we looked
    }
  }
  return table;
}

function treeOf(pid: number): number[] {
  const table = processTable();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of table) if (parent === tree[i]) tree.push(child);
  return tree;
}

const alive = (pids: number[]) => {
  const table = processTable();
  return pids.filter((pid) => table.has(pid));
};

async function waitUntil(ok: () => Promise<boolean>, ms: number, output: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (npm?.exitCode !== null) throw new Error(`npm start exited early: ${output()}`);
    if (Date.now() > deadline) throw new Error(`npm start did not get ready: ${output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('npm start', () => {
  it('runs the compiled server, and SIGTERM to npm ends its whole tree after in-flight requests finish', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production', PASSWORD_HASH_COST: '10', JOBS_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a failed test can still clean up everything it started.
      detached: true,
    });
    let output = '';
    npm.stdout!.on('data', (d) => (output += d));
    npm.stderr!.on('data', (d) => (output += d));
    // A first start compiles (tsc) before it listens.
    await waitUntil(() => fetch(`${base}/ready`).then((r) => r.ok, () => false), 300_000, () => output);

    const tree = treeOf(npm.pid!);
    const server = tree.slice(1);
    expect(server.length).toBeGreaterThan(0);
    // The compiled build, not tsx.
    for (const pid of server) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('tsx');

    const reg = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `start-${Date.now()}@example.test`, password: 'a long password', name: 'Start' }),
    });
    expect(reg.status).toBe(201);
    const { session } = (await reg.json()) as { session: string };

    // In flight when the signal arrives: headers sent, the body only half, the rest a second later.
    const body = JSON.stringify({ name: 'Renamed during shutdown' });
    const slow = request(`${base}/user/name`, {
      method: 'PATCH',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'service-session': session, connection: 'close' },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      slow.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      slow.on('error', reject);
    });
    slow.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 500));

    const signalled = Date.now();
    process.kill(npm.pid!, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    slow.end(body.slice(10));
    const res = await answered;
    expect(res.status, res.body).toBe(200);
    expect((JSON.parse(res.body) as { name: string }).name).toBe('Renamed during shutdown');

    while (alive(tree).length > 0 && Date.now() - signalled < 25_000) await new Promise((r) => setTimeout(r, 100));
    expect(alive(tree), `still running 25 s after SIGTERM; output: ${output}`).toEqual([]);
    expect(await fetch(`${base}/health`).then(() => 'answering', () => 'closed')).toBe('closed');
  }, 420_000);
});
