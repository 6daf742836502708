import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'workboard-locked-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the server to its end; answers its exit code and what it wrote. */
function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

// Independent of the suite's database: run in the embedded pass only.
describe.runIf(!process.env.DATABASE_URL)('a start that cannot go on', () => {
  it('stops with one line and status 1 on an embedded data directory held by another live process', async () => {
    // This test's own process is alive: the lock names it.
    writeFileSync(path.join(dir, 'workboard.pid'), `${process.pid}\n`);
    const { code, stdout, stderr } = await run({ DATA_DIR: dir });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^workboard: cannot start: the data directory .* is in use by process \d+/)]);
    expect(stdout + stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('gives up on an unreachable database after DATABASE_START_TIMEOUT_S with one line and status 1', async () => {
    const { code, stderr } = await run({ DATABASE_URL: 'postgres://nobody:secret-pw@127.0.0.1:9/none', DATABASE_START_TIMEOUT_S: '1', LOG_LEVEL: 'fatal' });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^workboard: cannot start: gave up waiting for the database at 127\.0\.0\.1:9 after \d+ s/)]);
    expect(stderr).not.toMatch(/secret-pw/);
  }, 60_000);
});
