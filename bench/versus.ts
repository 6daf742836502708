/**
 * `npm run bench:versus -- --base <checkout> [--head-env K=V,…] [--base-env K=V,…] [--db postgres|pglite] [--only W1,W1x1] [--rounds 6] [--slice 3] [--warmup 2]`
 *
 * This checkout's service against another checkout's (`--base`, with its dependencies installed or
 * linked), on one machine at the same time: both are started and seeded alike, then each workload
 * runs in short slices, alternately on one and the other (which goes first alternates too), and the
 * slices are summed. On a VM whose speed drifts by half within minutes (the neighbours' load), runs
 * minutes apart compare the drift; slices seconds apart compare the builds. Only one service is
 * loaded at a time. `--base .` with `--head-env` compares settings of one build (DATABASE_POOL_SIZE=4,
 * say); `--base-env` sets the base's (YOUNG_GENERATION_MB=128 runs it as `npm start` ran before
 * the young generation became opt-in). Prints one markdown row per workload and writes bench/results/versus-<time>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeSeeded, freshPostgres } from './postgres.js';
import { seedBoard, seedSpread, type Board } from './seed.js';
import { startServer, type RunningServer } from './server.js';
import { runWorkload, type Name, type WorkloadResult } from './workloads.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    'head-env': { type: 'string', default: '' },
    'base-env': { type: 'string', default: '' },
    db: { type: 'string', default: 'postgres' },
    only: { type: 'string', default: 'W0,W1,W1x1,W1e,W1ex1,W4,W4x1' },
    rounds: { type: 'string', default: '6' },
    slice: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    tasks: { type: 'string', default: '1000' },
  },
});
if (!values.base) throw new Error('--base <checkout> names the service to compare with');

const rounds = Number(values.rounds);
const slice = Number(values.slice);
const names = values.only!.split(',') as Name[];
const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/workboard_bench';

interface Side {
  label: string;
  server: RunningServer;
  board: Board;
  databaseUrl?: string;
  dataDir: string;
}

async function startSide(label: string, cwd: string, database: string, extraEnv: Record<string, string> = {}): Promise<Side> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `workboard-versus-${label}-`));
  const env: Record<string, string> = { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files'), SECRETS_KEY: randomBytes(32).toString('base64'), ...extraEnv };
  let databaseUrl: string | undefined;
  if (values.db === 'postgres') {
    const url = new URL(postgresUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    await freshPostgres(databaseUrl);
    // A --head-env DATABASE_URL (a pooler in front of the same database) is where the service connects.
    env.DATABASE_URL = extraEnv.DATABASE_URL ?? databaseUrl;
  }
  const options = { cpuProf: null, cwd };
  let server = await startServer(env, options);
  const board = await seedBoard(server.url, Number(values.tasks));
  server = await analyzeSeeded(values.db!, databaseUrl ?? '', dataDir, server, () => startServer(env, options));
  if (names.includes('W4p') || names.includes('W4c')) await seedSpread(server.url, board, 10, 20);
  console.error(`[${label}] ${cwd}: seeded ${board.taskIds.length} tasks`);
  return { label, server, board, databaseUrl, dataDir };
}

interface Sum {
  requests: number;
  seconds: number;
  serviceCpuMs: number;
  databaseCpuMs: number;
  errors: number;
  p50: number[];
  p99: number[];
}

const empty = (): Sum => ({ requests: 0, seconds: 0, serviceCpuMs: 0, databaseCpuMs: 0, errors: 0, p50: [], p99: [] });

function add(sum: Sum, r: WorkloadResult): void {
  sum.requests += r.requests;
  sum.seconds += r.requests / Math.max(r.rps, 1e-9);
  sum.serviceCpuMs += r.serverCpuMsPerRequest * r.requests;
  sum.databaseCpuMs += (r.dbCpuMsPerRequest ?? 0) * r.requests;
  sum.errors += r.errors;
  sum.p50.push(r.p50);
  sum.p99.push(r.p99);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const rate = (s: Sum) => s.requests / Math.max(s.seconds, 1e-9);
const cpu = (s: Sum) => `${(s.serviceCpuMs / Math.max(s.requests, 1)).toFixed(2)} + ${(s.databaseCpuMs / Math.max(s.requests, 1)).toFixed(2)}`;

const pairs = (option: 'head-env' | 'base-env') =>
  Object.fromEntries(
    values[option]!.split(',').filter(Boolean).map((kv) => {
      const at = kv.indexOf('=');
      if (at < 1) throw new Error(`--${option} takes K=V pairs, not "${kv}"`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
const base = await startSide('base', path.resolve(values.base), 'workboard_bench_base', pairs('base-env'));
const head = await startSide('head', process.cwd(), 'workboard_bench', pairs('head-env'));
const rows: Array<{ name: Name; base: Sum; head: Sum }> = [];
try {
  for (const name of names) {
    const sums = { base: empty(), head: empty() };
    for (const side of [base, head]) await runWorkload(name, side.server, side.board, { duration: Number(values.warmup), warmup: 0 });
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [base, head] : [head, base]) {
        add(sums[side.label as 'base' | 'head'], await runWorkload(name, side.server, side.board, { duration: slice, warmup: 0, databaseUrl: side.databaseUrl }));
      }
    }
    rows.push({ name, ...sums });
    const [b, h] = [rate(sums.base), rate(sums.head)];
    console.error(`${name}: base ${b.toFixed(0)}/s, head ${h.toFixed(0)}/s (× ${(h / b).toFixed(2)}), CPU ms/req ${cpu(sums.base)} → ${cpu(sums.head)}`);
  }
} finally {
  await Promise.all([base.server.stop(), head.server.stop()]);
  for (const side of [base, head]) rmSync(side.dataDir, { recursive: true, force: true });
}

console.log(`| workload (${values.db}, ${rounds} × ${slice} s each, alternated) | base req/s | head req/s | head ÷ base | p50 ms base / head | p99 ms base / head | CPU ms/req service + database, base → head | errors |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const [b, h] = [rate(r.base), rate(r.head)];
  console.log(
    `| ${r.name} | ${b.toFixed(0)} | ${h.toFixed(0)} | ${(h / b).toFixed(2)} | ${median(r.base.p50)} / ${median(r.head.p50)} | ${median(r.base.p99)} / ${median(r.head.p99)} | ${cpu(r.base)} → ${cpu(r.head)} | ${r.base.errors + r.head.errors} |`,
  );
}
mkdirSync(path.join('bench', 'results'), { recursive: true });
writeFileSync(path.join('bench', 'results', `versus-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ base: values.base, db: values.db, rounds, slice, rows }, null, 2));
