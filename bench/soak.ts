/**
 * `npm run soak -- --minutes 30 [--db pglite|postgres] [--load 0.7] [--slice 60] [--clients 20]`
 *
 * Starts the service (production mode) on a fresh database, seeds a 300-task board, measures the
 * peak rate of a realistic mix (32 connections), then drives that mix at `--load` × peak for
 * `--minutes`, in slices of `--slice` seconds. Meanwhile real-time clients connect to the SSE stream
 * and leave after a few seconds, and a webhook on the board's events posts to a receiver here.
 * Each slice prints errors, p50/p99 and the server's RSS; the summary says whether RSS grew after
 * warm-up (the first third) and writes bench/results/soak-<time>.json.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freshPostgres } from './postgres.js';
import { startServer } from './server.js';
import { seedBoard, type Board } from './seed.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    db: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    load: { type: 'string', default: '0.7' },
    slice: { type: 'string', default: '60' },
    clients: { type: 'string', default: '20' },
    tasks: { type: 'string', default: '300' },
  },
});
const minutes = Number(values.minutes);
const slice = Number(values.slice);
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/workboard_soak';

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** One connection's round: reads of the board, then a task's life (create, chat, move, recolour, delete). */
function mix(board: Board): autocannon.Request[] {
  const headers = { 'service-session': board.session, 'content-type': 'application/json' };
  // Requests without a body carry no content-type (Fastify refuses an empty JSON body).
  const plain = { 'service-session': board.session };
  const readOne: autocannon.Request = { method: 'GET', headers: plain, setupRequest: (req) => ({ ...req, path: `/tasks/${pick(board.taskIds)}` }) };
  type Ctx = { taskId?: number };
  return [
    readOne,
    { method: 'GET', headers: plain, path: `/projects/${board.projectId}/tasks` },
    readOne,
    {
      method: 'POST',
      path: '/tasks',
      headers,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: 'Soak task', stageId: board.stageIds[0] }) }),
      onResponse: (status, body, context: Ctx) => {
        if (status === 201) context.taskId = JSON.parse(body).task.id;
      },
    },
    { method: 'GET', headers: plain, path: '/notifications' },
    { method: 'POST', headers, setupRequest: (req, context: Ctx) => ({ ...req, path: `/tasks/${context.taskId}/messages`, body: JSON.stringify({ text: 'soak message' }) }) },
    { method: 'POST', headers, path: '/tasks/move', setupRequest: (req, context: Ctx) => ({ ...req, body: JSON.stringify({ taskIds: [context.taskId], stageId: pick(board.stageIds.slice(1)) }) }) },
    { method: 'PATCH', headers, setupRequest: (req) => ({ ...req, path: `/tasks/${pick(board.taskIds)}/color`, body: JSON.stringify({ color: pick(['#ff0000', '#00ff00', '#0000ff']) }) }) },
    { method: 'GET', headers: plain, path: '/tasks/search?q=Task%201' },
    { method: 'DELETE', headers: plain, setupRequest: (req, context: Ctx) => ({ ...req, path: `/tasks/${context.taskId}` }) },
  ];
}

function fire(url: string, duration: number, requests: autocannon.Request[], overallRate?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 32, duration, requests, ...(overallRate ? { overallRate } : {}) }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** A webhook receiver on 127.0.0.1 that answers 204 and counts what it got. */
async function startReceiver() {
  let received = 0;
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, received: () => received, close: () => new Promise((r) => server.close(r)) };
}

/** Keeps `count` SSE clients connected, each leaving after 2–10 s and replaced by a new one. */
function realtimeClients(base: string, session: string, count: number) {
  let stopped = false;
  const stats = { connections: 0, events: 0, failures: 0 };
  const one = async () => {
    while (!stopped) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 2000 + Math.random() * 8000);
      try {
        const res = await fetch(`${base}/events`, { headers: { 'service-session': session }, signal: abort.signal });
        if (res.status !== 200) stats.failures++;
        else stats.connections++;
        const decoder = new TextDecoder();
        for await (const chunk of res.body!) stats.events += (decoder.decode(chunk as Uint8Array).match(/^id:/gm) ?? []).length;
      } catch (e) {
        if ((e as Error).name !== 'AbortError') stats.failures++;
      } finally {
        clearTimeout(timer);
      }
    }
  };
  const running = Array.from({ length: count }, one);
  return { stats, stop: async () => ((stopped = true), await Promise.allSettled(running)) };
}

interface Slice {
  minute: number;
  requests: number;
  rps: number;
  errors: number;
  errorKinds: Record<string, number>;
  p50: number;
  p99: number;
  rssMiB: number;
  /** Server CPU over the slice, % of one core: near 100 on the embedded database means it is the bottleneck. */
  cpuPercent: number;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-soak-'));
const env: Record<string, string> = { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files'), WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
if (values.db === 'postgres') {
  await freshPostgres(pgUrl);
  env.DATABASE_URL = pgUrl;
}
const server = await startServer(env, { cpuProf: null });
const receiver = await startReceiver();
try {
  const board = await seedBoard(server.url, Number(values.tasks));
  const hook = await fetch(`${server.url}/webhooks`, {
    method: 'POST',
    headers: { 'service-session': board.session, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['task.created', 'task.moved', 'message.created'] }),
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
  const webhookId = (await hook.json()).id as number;
  const requests = mix(board);
  const peak = await fire(server.url, 15, requests);
  const rate = Math.round(peak.requests.average * Number(values.load));
  console.error(`[soak ${values.db}] peak of the mix ${peak.requests.average.toFixed(0)} req/s (errors ${peak.non2xx + peak.errors}); driving ${rate} req/s for ${minutes} min`);

  const clients = realtimeClients(server.url, board.session, Number(values.clients));
  const slices: Slice[] = [];
  const started = Date.now();
  while (Date.now() - started < minutes * 60_000) {
    const seconds = Math.min(slice, Math.ceil((minutes * 60_000 - (Date.now() - started)) / 1000));
    const cpuBefore = server.cpuSeconds();
    const sliceStarted = Date.now();
    const r = await fire(server.url, seconds, requests, rate);
    const cpuPercent = Math.round(((server.cpuSeconds() - cpuBefore) / ((Date.now() - sliceStarted) / 1000)) * 100);
    const errorKinds = Object.fromEntries(
      Object.entries(r.statusCodeStats ?? {})
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, stat]) => [code, (stat as { count: number }).count]),
    );
    if (r.errors) errorKinds.transport = r.errors;
    const s: Slice = { minute: Math.round((Date.now() - started) / 6000) / 10, requests: r.requests.total, rps: r.requests.average, errors: r.non2xx + r.errors, errorKinds, p50: r.latency.p50, p99: r.latency.p99, rssMiB: Math.round(server.rssMiB()), cpuPercent };
    slices.push(s);
    console.error(`[soak ${values.db}] ${s.minute} min: ${s.rps.toFixed(0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, errors ${s.errors} ${JSON.stringify(s.errorKinds)}, RSS ${s.rssMiB} MiB, CPU ${s.cpuPercent}%, SSE ${clients.stats.connections} connections ${clients.stats.events} events, webhooks ${receiver.received()}`);
  }
  await clients.stop();
  // Deliveries still queued at the end are given a moment to go out.
  await new Promise((r) => setTimeout(r, 5000));
  const deliveries = await fetch(`${server.url}/webhooks/${webhookId}/deliveries?limit=1`, { headers: { 'service-session': board.session } });
  const afterWarmup = slices.slice(Math.floor(slices.length / 3));
  const rss = afterWarmup.map((s) => s.rssMiB);
  const summary = {
    db: values.db,
    minutes,
    peakRps: Math.round(peak.requests.average),
    drivenRps: rate,
    requests: slices.reduce((n, s) => n + s.requests, 0),
    errors: slices.reduce((n, s) => n + s.errors, 0),
    worstP99: Math.max(...slices.map((s) => s.p99)),
    rssAfterWarmup: { first: rss[0], last: rss.at(-1), min: Math.min(...rss), max: Math.max(...rss) },
    sse: { ...clients.stats, failures: clients.stats.failures },
    webhooks: { received: receiver.received(), deliveriesListed: Number(deliveries.headers.get('x-total-count') ?? 0) },
  };
  console.log(JSON.stringify(summary, null, 2));
  mkdirSync(path.join('bench', 'results'), { recursive: true });
  const file = path.join('bench', 'results', `soak-${values.db}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), summary, slices }, null, 2));
  console.log(`results: ${file}`);
  if (summary.errors > 0 || summary.sse.failures > 0) process.exitCode = 1;
} finally {
  await receiver.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
