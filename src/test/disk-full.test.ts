import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, signUp } from './fault-load.js';
import { freePort } from './net.js';
import { exited, seedDataDir, startServerProcess } from './server-process.js';

/**
 * The embedded database's disk fills up: writes answer 503 STORAGE_FULL, reads go on, writes work
 * again once space is freed, and a restart finds every acknowledged write. The data directory sits
 * on a small tmpfs of the test's own, which needs root (CI runs as root); elsewhere it is skipped.
 */
const root = process.getuid?.() === 0;
const runs = root && !process.env.DATABASE_URL;
const children: ChildProcess[] = [];
const mount = mkdtempSync(path.join(tmpdir(), 'workboard-full-'));
let mounted = false;

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  if (mounted) execFileSync('umount', ['-l', mount]);
  rmSync(mount, { recursive: true, force: true });
});

/** Writes a filler file until the disk is full; answers its path. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 1024; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch {
        size >>= 1;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

describe.runIf(runs)('the embedded database with a full disk', () => {
  it('answers writes 503 STORAGE_FULL, serves reads, recovers once space is freed, and keeps every acknowledged write', async () => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mount]);
      mounted = true;
    } catch (err) {
      // A container without CAP_SYS_ADMIN: nothing here can fill a disk safely.
      console.warn(`disk-full test skipped: cannot mount a tmpfs (${(err as Error).message})`);
      return;
    }
    const dataDir = path.join(mount, 'data');
    seedDataDir(dataDir);
    const port = await freePort();
    const env = { DATA_DIR: dataDir, FILES_DIR: path.join(mount, 'files'), API_RATE_LIMIT_PER_MINUTE: '1000000', JOBS_ENABLED: 'false' };
    let server = await startServerProcess(port, env, children);
    const s = await signUp(`http://127.0.0.1:${port}`, 'full');
    const acknowledged: number[] = [];
    const first = await call(s.base, 'POST', '/tasks', { name: 'before', stageId: s.stageId }, s.session);
    expect(first.status).toBe(201);
    acknowledged.push(first.body.task.id);

    const filler = fill(mount);
    // Large descriptions need new pages soon: the first write that cannot extend a file fails.
    const big = 'x'.repeat(200_000);
    const answers: Array<{ status: number; code?: string; retryAfter: string | null }> = [];
    for (let i = 0; i < 40 && !answers.some((a) => a.status === 503); i++) {
      const res = await call(s.base, 'POST', '/tasks', { name: `full ${i}`, description: big + i, stageId: s.stageId }, s.session);
      answers.push({ status: res.status, code: res.body?.code, retryAfter: res.headers.get('retry-after') });
      if (res.status === 201) acknowledged.push(res.body.task.id);
    }
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.length, 'writes refused on a full disk').toBeGreaterThan(0);
    for (const a of refused) expect(a).toMatchObject({ status: 503, code: 'STORAGE_FULL' });
    expect(Number(refused[0]!.retryAfter)).toBeGreaterThan(0);
    const read = await call(s.base, 'GET', `/tasks/${acknowledged[0]}`, undefined, s.session);
    expect(read.status, 'a read on a full disk').toBe(200);
    expect(read.body.name).toBe('before');

    rmSync(filler);
    const after = await call(s.base, 'POST', '/tasks', { name: 'after', stageId: s.stageId }, s.session);
    expect(after.status, 'a write once space is freed').toBe(201);
    acknowledged.push(after.body.task.id);

    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
    server = await startServerProcess(port, env, children);
    for (const id of acknowledged) expect((await call(s.base, 'GET', `/tasks/${id}`, undefined, s.session)).status, `task ${id} after a restart`).toBe(200);
    server.kill('SIGTERM');
    await exited(server);
  }, 180_000);
});
