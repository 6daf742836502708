import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './net.js';
import { exited, seedDataDir, startServerProcess } from './server-process.js';

const dataDir = seedDataDir(mkdtempSync(path.join(tmpdir(), 'workboard-durable-')));
const children: ChildProcess[] = [];


const startServer = (port: number) => startServerProcess(port, { DATA_DIR: dataDir }, children);

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
