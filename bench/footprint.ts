/**
 * `npm run bench:footprint [-- --db pglite|postgres|both] [--idle 60] [--load 60] [--after 60] [--clone HEAD|none]`
 *
 * What the service holds on a small server (issue 42). On each database it runs `npm start` as an
 * operator would (the whole process tree: npm, then node) and reads, at four points — 5 s after the
 * first `/health`, after --idle seconds with nothing to do, the peak while the bench's W0–W4 run
 * together for --load seconds (seeded board of 1,000 tasks first), and --after seconds after that
 * load stops — the resident memory of the whole tree (summed over /proc; also its PSS, which counts
 * pages the processes share once), and from `/metrics` the V8
 * heap used, external memory and the embedded database's WASM memory (PGlite only).
 *
 * Start times: `npm start` to the first `/health` 200 on a fresh data directory (migrations) with
 * dist/ already built, and a warm start (built, migrated). With --clone <rev> (default HEAD) it also
 * times the first `npm start` of a fresh clone of that revision (no dist/, no web/dist/: both are
 * built), its node_modules a link to this checkout's, so what is timed is the start, not npm install.
 * Prints markdown tables and writes bench/results/footprint-<timestamp>.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { freePort } from '../src/test/net.js';
import { freshPostgres } from './postgres.js';
import { seedBoard } from './seed.js';
import type { RunningServer } from './server.js';
import { runWorkload, type WorkloadResult } from './workloads.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    idle: { type: 'string', default: '60' },
    load: { type: 'string', default: '60' },
    after: { type: 'string', default: '60' },
    clone: { type: 'string', default: 'HEAD' },
  },
});
const pgUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/workboard_bench';
const root = process.cwd();
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const MiB = 1024 * 1024;

/** Every process under pid (itself included), read from /proc's children lists. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const rssOf = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};
/** Proportional set size: a page shared by n processes (the node binary's text, npm's and the server's) counts 1/n in each. */
const pssOf = (pid: number) => {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};
const cpuOf = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
};

interface Started {
  child: ChildProcess;
  url: string;
  /** From spawning `npm start` to the first /health 200. */
  healthMs: number;
  output: () => string;
  stop(): Promise<void>;
}

async function npmStart(cwd: string, env: Record<string, string>, timeoutMs = 600_000): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd,
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: env.DATABASE_URL ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  // Request lines would flood the buffer: only the start-up's lines are kept.
  const keep = (d: Buffer) => {
    if (output.length < 20_000) output += d;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`npm start did not answer /health: ${output}`);
    await sleep(0.05);
  }
  const healthMs = performance.now() - started;
  return {
    child,
    url,
    healthMs,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        process.kill(-child.pid!, 'SIGTERM');
      }),
  };
}

interface Point {
  at: string;
  rssMiB: number;
  /** The tree's PSS: what it takes of the machine, shared pages counted once (a sum of RSS counts them in each process). */
  pssMiB: number;
  heapUsedMiB: number | null;
  externalMiB: number | null;
  wasmMiB: number | null;
}

async function metricsOf(url: string): Promise<Pick<Point, 'heapUsedMiB' | 'externalMiB' | 'wasmMiB'>> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text(), () => '');
  const read = (name: string) => {
    const m = new RegExp(`^workboard_${name} (\\S+)`, 'm').exec(text);
    return m ? Math.round(Number(m[1]) / MiB) : null;
  };
  return { heapUsedMiB: read('nodejs_heap_size_used_bytes'), externalMiB: read('nodejs_external_memory_bytes'), wasmMiB: read('db_wasm_memory_bytes') };
}

async function point(at: string, s: Started): Promise<Point> {
  const pids = tree(s.child.pid!);
  const rssMiB = Math.round(pids.reduce((sum, pid) => sum + rssOf(pid), 0) / MiB);
  const pssMiB = Math.round(pids.reduce((sum, pid) => sum + pssOf(pid), 0) / MiB);
  return { at, rssMiB, pssMiB, ...(await metricsOf(s.url)) };
}

interface DbResult {
  db: string;
  freshDataDirHealthMs: number;
  warmHealthMs: number;
  points: Point[];
  load: Array<Pick<WorkloadResult, 'name' | 'rps' | 'p50' | 'p99' | 'errors'>>;
  startLines: string[];
}

async function measure(db: string): Promise<DbResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-footprint-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files'), SECRETS_KEY: randomBytes(32).toString('base64') };
  if (db === 'postgres') {
    await freshPostgres(pgUrl);
    env.DATABASE_URL = pgUrl;
  }
  try {
    // Built beforehand, so the fresh data directory's start times the migrations, not the build.
    for (const script of ['scripts/build.mjs', 'scripts/build-web.mjs']) {
      if (spawnSync(process.execPath, [script, '--if-stale'], { stdio: 'inherit' }).status !== 0) throw new Error(`${script} failed`);
    }
    const first = await npmStart(root, env);
    const startLines = first.output().split('\n').filter((l) => /build|migration|listening on/.test(l));
    await first.stop();
    const s = await npmStart(root, env);
    console.error(`[${db}] /health after ${Math.round(first.healthMs)} ms (fresh data directory), ${Math.round(s.healthMs)} ms (warm)`);
    const points: Point[] = [];
    const at = async (label: string) => {
      const p = await point(label, s);
      console.error(`[${db}] ${label}: RSS ${p.rssMiB} MiB, PSS ${p.pssMiB}, heap ${p.heapUsedMiB}, external ${p.externalMiB}, WASM ${p.wasmMiB ?? '—'}`);
      points.push(p);
    };
    try {
      await sleep(5);
      await at('5 s after /health');
      await sleep(Number(values.idle));
      await at(`idle ${values.idle} s`);
      const board = await seedBoard(s.url, 1000);
      // The load's RunningServer: the tree's RSS and CPU (runWorkload samples the peak every 100 ms).
      const server: RunningServer = {
        url: s.url,
        pid: s.child.pid!,
        rssMiB: () => tree(s.child.pid!).reduce((sum, pid) => sum + rssOf(pid), 0) / MiB,
        cpuSeconds: () => tree(s.child.pid!).reduce((sum, pid) => sum + cpuOf(pid), 0),
        stop: () => s.stop(),
      };
      let peak: Point = { at: `peak under W0–W4 together, ${values.load} s`, rssMiB: 0, pssMiB: 0, heapUsedMiB: 0, externalMiB: 0, wasmMiB: null };
      let running = true;
      const sampler = (async () => {
        while (running) {
          const p = await point(peak.at, s);
          peak = {
            at: peak.at,
            rssMiB: Math.max(peak.rssMiB, p.rssMiB),
            pssMiB: Math.max(peak.pssMiB, p.pssMiB),
            heapUsedMiB: Math.max(peak.heapUsedMiB ?? 0, p.heapUsedMiB ?? 0),
            externalMiB: Math.max(peak.externalMiB ?? 0, p.externalMiB ?? 0),
            wasmMiB: p.wasmMiB === null ? null : Math.max(peak.wasmMiB ?? 0, p.wasmMiB),
          };
          await sleep(1);
        }
      })();
      const t = { duration: Number(values.load), warmup: 0, databaseUrl: env.DATABASE_URL };
      const load = await Promise.all((['W0', 'W1', 'W2', 'W3', 'W4'] as const).map((name) => runWorkload(name, server, board, t)));
      running = false;
      await sampler;
      peak.rssMiB = Math.max(peak.rssMiB, Math.round(Math.max(...load.map((r) => r.peakRssMiB))));
      points.push(peak);
      console.error(`[${db}] ${peak.at}: RSS ${peak.rssMiB} MiB, PSS ${peak.pssMiB}, heap ${peak.heapUsedMiB}, external ${peak.externalMiB}, WASM ${peak.wasmMiB ?? '—'}`);
      for (const r of load) console.error(`[${db}]   ${r.name}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, errors ${r.errors}`);
      await sleep(Number(values.after));
      await at(`${values.after} s after the load`);
      return {
        db,
        freshDataDirHealthMs: Math.round(first.healthMs),
        warmHealthMs: Math.round(s.healthMs),
        points,
        load: load.map((r) => ({ name: r.name, rps: Math.round(r.rps), p50: r.p50, p99: r.p99, errors: r.errors })),
        startLines,
      };
    } finally {
      await s.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The first `npm start` of a fresh clone of `rev`: builds dist/ and web/dist/, migrates a fresh data directory. */
async function freshClone(rev: string): Promise<{ rev: string; healthMs: number; lines: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'workboard-clone-'));
  try {
    const clone = (args: string[]) => {
      const r = spawnSync('git', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed`);
    };
    clone(['clone', '-q', '--no-checkout', root, 'repo']);
    const repo = path.join(dir, 'repo');
    const sha = spawnSync('git', ['rev-parse', rev], { cwd: root, encoding: 'utf8' }).stdout.trim();
    spawnSync('git', ['checkout', '-q', sha], { cwd: repo, stdio: 'inherit' });
    symlinkSync(path.join(root, 'node_modules'), path.join(repo, 'node_modules'));
    const dataDir = path.join(dir, 'data');
    const s = await npmStart(repo, { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files'), SECRETS_KEY: randomBytes(32).toString('base64') });
    const lines = s.output().split('\n').filter((l) => /build|migration|listening on/.test(l));
    await s.stop();
    console.error(`[clone ${sha.slice(0, 8)}] first npm start: /health after ${Math.round(s.healthMs)} ms`);
    return { rev: sha.slice(0, 12), healthMs: Math.round(s.healthMs), lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const clone = values.clone === 'none' ? null : await freshClone(values.clone!);
const results: DbResult[] = [];
for (const db of values.db === 'both' ? ['pglite', 'postgres'] : values.db === 'none' ? [] : [values.db!]) results.push(await measure(db));

const lines = ['| db | point | RSS MiB (npm start tree) | PSS MiB (tree) | V8 heap used MiB | external MiB | WASM MiB |', '|---|---|---|---|---|---|---|'];
for (const r of results) for (const p of r.points) lines.push(`| ${r.db} | ${p.at} | ${p.rssMiB} | ${p.pssMiB} | ${p.heapUsedMiB ?? '—'} | ${p.externalMiB ?? '—'} | ${p.wasmMiB ?? '—'} |`);
lines.push('', '| start | ms to first /health |', '|---|---|');
if (clone) lines.push(`| fresh clone of ${clone.rev}, first \`npm start\` (build, web build, migrations; PGlite) | ${clone.healthMs} |`);
for (const r of results) lines.push(`| ${r.db}: built, fresh data directory (migrations) | ${r.freshDataDirHealthMs} |`, `| ${r.db}: warm (built, migrated) | ${r.warmHealthMs} |`);
lines.push('', '| db | load workload | req/s | p50 ms | p99 ms | errors |', '|---|---|---|---|---|---|');
for (const r of results) for (const w of r.load) lines.push(`| ${r.db} | ${w.name} | ${w.rps} | ${w.p50} | ${w.p99} | ${w.errors} |`);
console.log(lines.join('\n'));
mkdirSync(path.join('bench', 'results'), { recursive: true });
const file = path.join('bench', 'results', `footprint-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), idle: values.idle, load: values.load, after: values.after, clone, results }, null, 2));
console.log(`\nresults: ${file}`);
