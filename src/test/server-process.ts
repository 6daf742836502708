import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Starts `src/server.ts` as its own process (production mode, logs at warn) and waits until `until`
 * (`/ready`) answers 2xx; its output is kept in `output.text` and in the error when it exits or
 * never gets there. Tests that kill or
 * restart the server use this: `app.inject` cannot lose a process.
 */
export async function startServerProcess(port: number, env: NodeJS.ProcessEnv, children: ChildProcess[], until = '/ready', output: { text: string } = { text: '' }): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d) => (output.text += d));
  child.stderr!.on('data', (d) => (output.text += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output.text}`);
    const ok = await fetch(`http://127.0.0.1:${port}${until}`).then((r) => r.ok, () => false);
    if (ok) return child;
    if (Date.now() > deadline) throw new Error(`server did not start: ${output.text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Resolves with the exit code once the process has ended (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

/**
 * Fills an embedded data directory with the run's migrated image (global-setup's PGlite dump), so a
 * server started on it skips initdb and every migration: 5–7 s to /ready instead of 17–19 s, for
 * each test that starts one (issue 42). On PostgreSQL runs there is no image and the directory stays
 * empty. compiled-start and image-start keep a fresh directory: they prove a first start.
 */
export function seedDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const image = inject('pgliteImage');
  if (image) execFileSync('tar', ['-xf', image, '-C', dir], { stdio: 'ignore' });
  return dir;
}
