import { EMBEDDED_YOUNG_GENERATION_MB } from '../src/config/settings.server.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../src/test/net.js';

export interface RunningServer {
  url: string;
  pid: number;
  /** CPU seconds (user + system) the server process has used so far. */
  cpuSeconds(): number;
  /** Resident memory now, MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}


const TICKS = 100; // USER_HZ on Linux

/**
 * Starts the server in production mode as its own process, so its CPU and memory can be read from
 * /proc: `src/server.ts` through tsx, or the compiled `dist/server.js` (`npm run build` first).
 */
export async function startServer(env: Record<string, string>, options: { cpuProf: string | null; entry?: 'tsx' | 'compiled'; cwd?: string }): Promise<RunningServer> {
  const port = await freePort();
  // As `npm start` runs it (package.json): YOUNG_GENERATION_MB (two semi-spaces of half that each),
  // by default 8 MB on the embedded database and V8's own on PostgreSQL; its size is part of what
  // is measured.
  const young = Number(env.YOUNG_GENERATION_MB || process.env.YOUNG_GENERATION_MB || (env.DATABASE_URL ? 0 : EMBEDDED_YOUNG_GENERATION_MB));
  const args = [...(young > 0 ? [`--max-semi-space-size=${Math.floor(young / 2)}`] : []), ...(options.entry === 'compiled' ? [] : ['--import', 'tsx'])];
  if (options.cpuProf) args.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`);
  args.push(options.entry === 'compiled' ? 'dist/server.js' : 'src/server.ts');
  const child: ChildProcess = spawn(process.execPath, args, {
    // Another checkout's service (bench/versus.ts) runs from its own directory.
    cwd: options.cwd,
    env: {
      ...process.env,
      ...env,
      // The caller's env names the database: a PGlite run of `--db both` must not inherit the
      // DATABASE_URL given for its PostgreSQL part.
      DATABASE_URL: env.DATABASE_URL ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      // The benchmark drives one account at full speed; the per-credential limit would measure itself.
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited during start');
    try {
      if ((await fetch(`${url}/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not become ready');
    // Often: the start-up figure is read from here.
    await new Promise((r) => setTimeout(r, 25));
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    cpuSeconds() {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS;
    },
    rssMiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
