import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './net.js';

// Runs the real server entry (`npm start`'s command) as a child process on a temporary data directory.
const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-durable-'));
const children: ChildProcess[] = [];


async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(Boolean(process.env.DATABASE_URL))('durability of the embedded database', () => {
  it('keeps every acknowledged write after SIGKILL, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    let server = await startServer(port);
    const base = `http://127.0.0.1:${port}`;
    const post = (url: string, body: unknown, session?: string) =>
      fetch(base + url, { method: 'POST', headers: { 'content-type': 'application/json', ...(session ? { 'service-session': session } : {}) }, body: JSON.stringify(body) });

    const reg = await post('/auth/register', { email: 'durable@example.test', password: 'durable password', name: 'Durable' });
    expect(reg.status).toBe(201);
    const { session } = (await reg.json()) as { session: string };
    const names: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await post('/spaces', { name: `Space ${i}` }, session);
      expect(res.status).toBe(201);
      names.push(`Space ${i}`);
    }

    server.kill('SIGKILL');
    await exited(server);
    server = await startServer(port);

    const list = await fetch(`${base}/spaces?limit=500`, { headers: { 'service-session': session } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as Array<{ name: string }>).map((s) => s.name).sort()).toEqual([...names].sort());

    // Graceful stop: in-flight work finishes, the process exits 0, and the data directory opens again.
    const pending = post('/spaces', { name: 'during shutdown' }, session);
    await new Promise((r) => setTimeout(r, 5));
    server.kill('SIGTERM');
    const res = await pending.catch(() => null);
    expect(await exited(server)).toBe(0);
    server = await startServer(port);
    const after = await fetch(`${base}/spaces?limit=500`, { headers: { 'service-session': session } });
    const spaces = (await after.json()) as Array<{ name: string }>;
    expect(spaces.length).toBe(res?.status === 201 ? 21 : 20);
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
  }, 180_000);
});
