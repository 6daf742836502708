/**
 * `npm run bench [-- --db pglite|postgres|both] [--duration 10] [--warmup 3] [--only W0,W2] [--cpu-prof]`
 *
 * Starts the service itself (production mode, logs at warn), seeds through the HTTP API an
 * organization with a space, a project of 4 columns and 1,000 tasks (assignee, label, subtask and a
 * message each), then measures the workloads users feel against W0, the ceiling of the same app:
 *   W0 GET /health (no database) · W1 create a task (32 and 1 connections) · W2 read one task ·
 *   W3 read the whole 1,000-task project (1 connection) · W4 move a task to another column/position (W4x1: one connection) ·
 *   W4r W4 with five enabled automation rules that moves trigger · W1e/W1ex1 create appended at the
 *   end of a column (32 and 1 connections) · W4p moves spread over 10 small projects of the
 *   organization, W4c the same confined to one of them (their ratio: writes to different projects in parallel) ·
 *   W2f/W3f as W2/W3 past the read cache (Cache-Control: no-cache) · W0z/W2z/W3z as W0/W2/W3 with
 *   Accept-Encoding: br, gzip (compression of answers of 1 KiB and more) · W5 nine reads and one write ·
 *   W6 ask the assistant without a model (extractive) over an index of 10,000 chunks (--ai-pages
 *   1000 pages of 10 sections) · W7 the same with an embedding and a chat model on a local fake
 *   OpenAI-compatible server (hybrid ranking over 768-dimension vectors, then the generation path) ·
 *   WA1–WA10 each analytics report on an organization of --analytics-tasks (100,000) tasks
 *   (bench/analytics.ts: bulk-seeded in SQL with the server stopped, then ANALYZE; one connection) ·
 *   S start-up time and warmed-up RSS of the server through tsx and compiled (bench/startup.ts) ·
 *   F a 200 MB upload and download on the S3 backend: peak RSS against idle, byte-identical, Range (bench/files.ts) ·
 *   M1/M1h search_tasks through the MCP SDK client against GET /tasks/search, M2/M2h create_task against POST /tasks (bench/mcp.ts; M runs all four).
 * Prints a markdown table and writes bench/results/<timestamp>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeSeeded, freshPostgres } from './postgres.js';
import { startServer, type RunningServer } from './server.js';
import { seedBoard, seedSpread, type Board } from './seed.js';
import { runWorkload, type WorkloadResult } from './workloads.js';
import { benchAnalytics } from './analytics.js';
import { fakeModelServer, indexSpace, seedKnowledge } from './seed-ai.js';
import { call } from './seed.js';
import { measureStartup, type StartupResult } from './startup.js';
import { randomBytes } from 'node:crypto';
import { benchFiles, filesTable, type FilesResult } from './files.js';
import { benchMcp } from './mcp.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    tasks: { type: 'string', default: '1000' },
    'cpu-prof': { type: 'boolean', default: false },
    only: { type: 'string', default: 'S,W0,W1,W1x1,W1e,W1ex1,W2,W2f,W3,W3f,W4,W4x1,W4c,W4p,W5,W4r,M,W6,W7,WA,F' },
    'analytics-tasks': { type: 'string', default: '100000' },
    'ai-pages': { type: 'string', default: '1000' },
  },
});

const duration = Number(values.duration);
const warmup = Number(values.warmup);
const taskCount = Number(values.tasks);
const modes = values.db === 'both' ? ['pglite', 'postgres'] : [values.db!];
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/workboard_bench';

interface ModeResult {
  db: string;
  seedSeconds: number;
  seedNotes: string[];
  results: WorkloadResult[];
  startup?: StartupResult[];
  files?: FilesResult;
}

async function benchMode(mode: string): Promise<ModeResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-bench-'));
  const fake = await fakeModelServer(768);
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    FILES_DIR: path.join(dataDir, 'files'),
    // W7's model is the local fake; PostgreSQL needs a key to store its (dummy) API key.
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    SECRETS_KEY: randomBytes(32).toString('base64'),
  };
  if (mode === 'postgres') {
    await freshPostgres(pgUrl);
    env.DATABASE_URL = pgUrl;
  }
  let server: RunningServer | null = null;
  try {
    const startup = values.only!.split(',').includes('S') ? await measureStartup(env) : undefined;
    for (const s of startup ?? []) console.error(`[${mode}] start-up ${s.entry}: ${s.startupMs} ms, RSS ${s.rssMiB} MiB`);
    const serverOptions = { cpuProf: values['cpu-prof'] ? path.join('bench', 'results', `${mode}-${Date.now()}`) : null };
    server = await startServer(env, serverOptions);
    const started = performance.now();
    const board: Board = await seedBoard(server.url, taskCount);
    server = await analyzeSeeded(mode, pgUrl, dataDir, server, () => startServer(env, serverOptions));
    const seedSeconds = (performance.now() - started) / 1000;
    console.error(`[${mode}] seeded ${board.taskIds.length} tasks in ${seedSeconds.toFixed(1)} s ${board.notes.join('; ')}`);
    const results: WorkloadResult[] = [];
    const wanted = new Set(values.only!.split(','));
    // Reads first, on the board exactly as seeded (1,000 tasks): the write workloads add hundreds of
    // tasks and churn positions, which would change what the reads measure.
    if (wanted.has('W4p') || wanted.has('W4c')) await seedSpread(server.url, board, 10, 20);
    const order = ['W0', 'W0z', 'W2', 'W2z', 'W2f', 'W3', 'W3z', 'W3f', 'W1', 'W1x1', 'W1e', 'W1ex1', 'W4', 'W4x1', 'W4c', 'W4p', 'W5', 'W4r'] as const;
    for (const name of order.filter((n) => wanted.has(n))) {
      if (name === 'W4r') await addBenchRules(server.url, board);
      const r = await runWorkload(name, server, board, { duration, warmup, databaseUrl: mode === 'postgres' ? pgUrl : undefined });
      const kinds = Object.entries(r.errorKinds).map(([k, n]) => `${k}×${n}`).join(' ');
      console.error(`[${mode}] ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}${kinds ? ` (${kinds})` : ''}, CPU ms/req ${cpuCost(r)}, ${r.bytesPerRequest} B/answer`);
      results.push(r);
    }
    if ([...wanted].some((n) => /^M/.test(n))) {
      for (const r of await benchMcp(server.url, board, { duration, warmup }, wanted)) {
        console.error(`[${mode}] ${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}`);
        results.push({ ...r, errorKinds: {}, cpuPercent: 0, serverCpuMsPerRequest: 0, dbCpuMsPerRequest: null, peakRssMiB: 0, bytesPerRequest: 0 });
      }
    }
    if (wanted.has('W6') || wanted.has('W7')) {
      const knowledge = await seedKnowledge(server.url, board.session, Number(values['ai-pages']), 10);
      board.questions = knowledge.questions;
      board.notes.push(`AI index: ${knowledge.chunks} chunks, indexed in ${knowledge.indexSeconds.toFixed(1)} s`);
      console.error(`[${mode}] ${board.notes.at(-1)}`);
      for (const name of (['W6', 'W7'] as const).filter((n) => wanted.has(n))) {
        if (name === 'W7') {
          await call(server.url, board.session, 'PUT', '/ai/llm-settings', { provider: 'openai-compatible', baseUrl: `${fake.url}/v1`, apiKey: 'bench-key-0000', model: 'fake-chat', embeddingModel: 'fake-embed-768' });
          const seconds = await indexSpace(server.url, board.session, knowledge.spaceId, false);
          board.notes.push(`AI re-index with 768-d embeddings: ${seconds.toFixed(1)} s`);
          console.error(`[${mode}] ${board.notes.at(-1)}`);
        }
        const r = await runWorkload(name, server, board, { duration, warmup });
        console.error(`[${mode}] ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}`);
        results.push(r);
      }
    }
    return { db: mode, seedSeconds, seedNotes: board.notes, results, startup };
  } finally {
    fake.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * W4r's five enabled rules, all triggered by moves between the board's columns, so most moves queue
 * runs that the engine then applies in the same server (set fields, comment) while the moves go on.
 */
async function addBenchRules(url: string, board: Board): Promise<void> {
  const s = board.stageIds;
  const at = (i: number) => s[i % s.length]!;
  const rules = [
    { name: 'Importance on entry', trigger: { type: 'entered-stage', stageId: at(1) }, actions: [{ type: 'set-importance', params: { importance: 2 } }] },
    { name: 'Done on entry', trigger: { type: 'entered-stage', stageId: at(2) }, actions: [{ type: 'set-status', params: { status: 1 } }] },
    { name: 'Reopen on leaving', trigger: { type: 'left-stage', stageId: at(2) }, actions: [{ type: 'set-status', params: { status: 0 } }] },
    {
      name: 'Comment on urgent entry',
      trigger: { type: 'entered-stage', stageId: at(3) },
      conditions: [{ field: 'importance', op: 'eq', value: 2 }],
      actions: [{ type: 'add-comment', params: { text: 'moved while urgent' } }],
    },
    { name: 'Reset on status', trigger: { type: 'status-changed', status: 0 }, actions: [{ type: 'set-importance', params: { importance: 1 } }] },
  ];
  for (const rule of rules) await call(url, board.session, 'POST', `/projects/${board.projectId}/automation-rules`, rule);
}

/** "service + database" CPU milliseconds per request (the database's only on PostgreSQL). */
const cpuCost = (r: WorkloadResult) =>
  `${r.serverCpuMsPerRequest.toFixed(2)}${r.dbCpuMsPerRequest === null ? '' : ` + ${r.dbCpuMsPerRequest.toFixed(2)}`}`;

function table(all: ModeResult[]): string {
  const lines = [
    '| db | workload | conns | req/s | × W0 | p50 ms | p99 ms | errors (non-2xx) | server CPU % | CPU ms/req service + database | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const m of all) {
    const w0 = m.results.find((r) => r.name === 'W0')?.rps;
    for (const r of m.results) {
      lines.push(
        `| ${m.db} | ${r.name} ${r.label} | ${r.connections} | ${r.rps.toFixed(0)} | ${w0 ? (r.rps / w0).toFixed(2) : '—'} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.cpuPercent.toFixed(0)} | ${cpuCost(r)} | ${r.peakRssMiB.toFixed(0)} |`,
      );
    }
  }
  const startups = all.flatMap((m) => (m.startup ?? []).map((s) => `| ${m.db} | ${s.entry === 'tsx' ? 'tsx src/server.ts' : 'node dist/server.js'} | ${s.startupMs} | ${s.rssMiB} |`));
  if (startups.length > 0) lines.push('', '| db | server | start-up ms (to /ready) | RSS MiB (warmed up) |', '|---|---|---|---|', ...startups);
  return lines.join('\n');
}

const all: ModeResult[] = [];
for (const mode of modes) {
  const m = await benchMode(mode);
  // WA seeds its own large organization (bulk SQL with the server stopped), after the others.
  if (values.only!.split(',').includes('WA')) {
    const a = await benchAnalytics(mode, pgUrl, Number(values['analytics-tasks']), { duration, warmup });
    m.seedNotes.push(...a.notes);
    m.results.push(...a.results);
  }
  if (values.only!.split(',').includes('F')) m.files = await benchFiles(mode === 'postgres' ? { DATABASE_URL: pgUrl } : {});
  all.push(m);
}
const out = table(all);
console.log(out);
for (const m of all) if (m.files) console.log(filesTable(m.db, m.files));
mkdirSync(path.join('bench', 'results'), { recursive: true });
const file = path.join('bench', 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), duration, warmup, taskCount, modes: all }, null, 2));
console.log(`\nresults: ${file}`);
