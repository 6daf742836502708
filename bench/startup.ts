import { spawnSync } from 'node:child_process';
import { startServer } from './server.js';

export interface StartupResult {
  entry: 'tsx' | 'compiled';
  /** From spawning the process to its first `/ready` 200 (median of the rounds). */
  startupMs: number;
  /** Resident memory after a short warm-up (last round). */
  rssMiB: number;
}

/**
 * Start-up time and memory of the server run through tsx (as `npm start` did) and compiled (as it
 * does now), on a database that is already migrated, so only the start itself is measured. The
 * first start of each mode (which may create and migrate the database) is not counted.
 */
export async function measureStartup(env: Record<string, string>, rounds = 3): Promise<StartupResult[]> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
  await (await startServer(env, { cpuProf: null })).stop();
  const results: StartupResult[] = [];
  for (const entry of ['tsx', 'compiled'] as const) {
    const times: number[] = [];
    let rssMiB = 0;
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const server = await startServer(env, { cpuProf: null, entry });
      times.push(performance.now() - started);
      // Warm-up: the routes' serializers and the database connection in use, then a settle.
      for (let n = 0; n < 200; n++) await fetch(`${server.url}/ready`).then((r) => r.arrayBuffer());
      await new Promise((r) => setTimeout(r, 2000));
      rssMiB = server.rssMiB();
      await server.stop();
    }
    times.sort((a, b) => a - b);
    results.push({ entry, startupMs: Math.round(times[Math.floor(times.length / 2)]!), rssMiB: Math.round(rssMiB) });
  }
  return results;
}
