import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { RunningServer } from './server.js';
import type { Board } from './seed.js';

export interface WorkloadResult {
  name: string;
  label: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** What the errors were: non-2xx status codes with their counts, timeouts, transport errors. */
  errorKinds: Record<string, number>;
  cpuPercent: number;
  /**
   * CPU milliseconds per request: the service's, and (PostgreSQL) its database backends'. On a
   * shared machine throughput and latency swing with the neighbours' load; the CPU a request costs
   * barely does, so before/after comparisons read this first.
   */
  serverCpuMsPerRequest: number;
  dbCpuMsPerRequest: number | null;
  peakRssMiB: number;
  /** Mean bytes per answer (headers and body) as received. */
  bytesPerRequest: number;
}

export type Name = 'W0' | 'W0z' | 'W1' | 'W1x1' | 'W1e' | 'W1ex1' | 'W4p' | 'W4c' | 'W2' | 'W2z' | 'W2f' | 'W3' | 'W3z' | 'W3f' | 'W4' | 'W4x1' | 'W4r' | 'W5' | 'W6' | 'W7';

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

type Definition = { label: string; connections: number; requests: autocannon.Request[] };

/**
 * W0z, W2z, W3z: W0, W2, W3 from a client that accepts compressed answers, as browsers do. The
 * service compresses only answers of 1 KiB and more, so W0z and W2z should cost nothing.
 */
function definition(name: Name, board: Board): Definition {
  if (!name.endsWith('z')) return plainDefinition(name, board);
  const base = plainDefinition(name.slice(0, -1) as Name, board);
  const accept = { 'accept-encoding': 'br, gzip, deflate' };
  return {
    label: `${base.label}, Accept-Encoding: br, gzip`,
    connections: base.connections,
    requests: base.requests.map((r) => ({ ...r, headers: { ...r.headers, ...accept } })),
  };
}

/** What a workload sends: each connection repeats `requests` in order. */
function plainDefinition(name: Name, board: Board): Definition {
  const headers = { 'service-session': board.session, 'content-type': 'application/json' };
  // 32 connections each moving the task `body` names.
  const move = (label: string, body: () => object, connections = 32): Definition => ({
    label,
    connections,
    requests: [{ method: 'POST', path: '/tasks/move', headers, setupRequest: (req) => ({ ...req, body: JSON.stringify(body()) }) }],
  });
  // Past the read cache (`Cache-Control: no-cache`): what the database path alone can do.
  const fresh = { ...headers, 'cache-control': 'no-cache' };
  const readOne: autocannon.Request = { method: 'GET', headers, setupRequest: (req) => ({ ...req, path: `/tasks/${pick(board.taskIds)}` }) };
  const board1000 = { method: 'GET', path: `/projects/${board.projectId}/tasks` } as const;
  switch (name) {
    case 'W0':
      return { label: 'GET /health (ceiling)', connections: 32, requests: [{ method: 'GET', path: '/health' }] };
    case 'W1':
    case 'W1x1':
      return {
        label: 'POST /tasks',
        connections: name === 'W1' ? 32 : 1,
        requests: [
          {
            method: 'POST',
            path: '/tasks',
            headers,
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: 'Bench task', stageId: board.stageIds[0], order: 0 }) }),
          },
        ],
      };
    case 'W1e':
    case 'W1ex1':
      // Appended at the end of the column (no order), as the peers were measured.
      return {
        label: 'POST /tasks, appended',
        connections: name === 'W1e' ? 32 : 1,
        requests: [{ method: 'POST', path: '/tasks', headers, setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: 'Bench task', stageId: board.stageIds[1] }) }) }],
      };
    case 'W4p':
    case 'W4c': {
      // W4p: moves spread over ten projects of one organization; W4c: the same moves confined to
      // one project's two columns. Their ratio is how far writes to different projects run in parallel.
      const boards = name === 'W4p' ? board.spread! : board.spread!.slice(0, 1);
      const label = name === 'W4p' ? 'POST /tasks/move, spread over 10 projects' : 'POST /tasks/move, one project (2 columns)';
      return move(label, () => {
        const b = pick(boards);
        return { taskIds: [pick(b.taskIds)], stageId: pick(b.stageIds), order: Math.floor(Math.random() * 20) };
      });
    }
    case 'W2':
      return { label: 'GET /tasks/{id}', connections: 32, requests: [readOne] };
    case 'W2f':
      return { label: 'GET /tasks/{id}, no-cache', connections: 32, requests: [{ ...readOne, headers: fresh }] };
    case 'W3':
      return { label: `GET /projects/{id}/tasks (${board.taskIds.length} tasks)`, connections: 1, requests: [{ ...board1000, headers }] };
    case 'W3f':
      return { label: `GET /projects/{id}/tasks (${board.taskIds.length} tasks), no-cache`, connections: 1, requests: [{ ...board1000, headers: fresh }] };
    case 'W5':
      // Each connection reads nine random tasks, then recolours one: every write drops the
      // organization's cached answers, so this is the cache under churn.
      return {
        label: 'GET /tasks/{id} ×9 + PATCH colour ×1',
        connections: 32,
        requests: [
          ...Array.from({ length: 9 }, () => readOne),
          {
            method: 'PATCH',
            headers,
            setupRequest: (req) => ({ ...req, path: `/tasks/${pick(board.taskIds)}/color`, body: JSON.stringify({ color: pick(['#ff0000', '#00ff00', '#0000ff']) }) }),
          },
        ],
      };
    case 'W6':
    case 'W7': {
      // W6: no LLM settings, the extractive answer (full-text ranking). W7: an embedding model and a
      // chat model on a local fake that answers at once: hybrid ranking plus the generation path.
      const ask: autocannon.Request = {
        method: 'POST',
        path: '/ai/requests',
        headers,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ question: pick(board.questions ?? ['anything?']) }) }),
      };
      // One connection: the latency one asker sees (the embedded database runs one statement at a time anyway).
      return { label: name === 'W6' ? 'POST /ai/requests, extractive' : 'POST /ai/requests, hybrid + model (local fake)', connections: 1, requests: [ask] };
    }
    case 'W4':
    case 'W4x1':
    case 'W4r':
      return move(
        name === 'W4r' ? 'POST /tasks/move, 5 automation rules' : 'POST /tasks/move',
        () => ({
          taskIds: [pick(board.taskIds)],
          stageId: pick(board.stageIds.slice(1)),
          order: Math.floor(Math.random() * 300),
        }),
        name === 'W4x1' ? 1 : 32,
      );
    default:
      throw new Error(`${name} has no plain definition`);
  }
}

function fire(url: string, connections: number, duration: number, requests: autocannon.Request[]): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * CPU ticks used so far by each PostgreSQL backend serving the bench database (named in its process
 * title), by pid; null on PGlite, whose engine runs inside the service's process.
 */
export function databaseTicks(url: string | undefined): Map<number, number> | null {
  if (!url) return null;
  const name = new URL(url).pathname.slice(1);
  const ticks = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (!title.startsWith('postgres: ') || !title.includes(` ${name} `)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
      ticks.set(Number(pid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}

/**
 * CPU seconds the bench database's backends used between two readings: those alive at the end,
 * less what they had used at the start (a pooled connection closed meanwhile had been idle).
 */
export function databaseCpuSince(before: Map<number, number> | null, url: string | undefined): number | null {
  const after = databaseTicks(url);
  if (!before || !after) return null;
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks / 100;
}

/** Warm-up, then a measured run; CPU and peak RSS are read from the server process meanwhile. */
export async function runWorkload(name: Name, server: RunningServer, board: Board, t: { duration: number; warmup: number; databaseUrl?: string }): Promise<WorkloadResult> {
  const def = definition(name, board);
  if (t.warmup > 0) await fire(server.url, def.connections, t.warmup, def.requests);
  let peak = server.rssMiB();
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 100);
  const cpuBefore = server.cpuSeconds();
  const dbBefore = databaseTicks(t.databaseUrl);
  const started = performance.now();
  const result = await fire(server.url, def.connections, t.duration, def.requests);
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpu = server.cpuSeconds() - cpuBefore;
  const db = databaseCpuSince(dbBefore, t.databaseUrl);
  const total = Math.max(1, result.requests.total);
  return {
    name,
    label: def.label,
    connections: def.connections,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    bytesPerRequest: Math.round(result.throughput.total / total),
    // Any answer that is not 2xx counts as an error, as do transport errors and timeouts
    // (autocannon's `errors` already includes its `timeouts`).
    errors: result.non2xx + result.errors,
    errorKinds: {
      ...Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {})
          .filter(([code]) => !code.startsWith('2'))
          .map(([code, stat]) => [code, (stat as { count: number }).count]),
      ),
      ...(result.timeouts ? { timeouts: result.timeouts } : {}),
      ...(result.errors - result.timeouts > 0 ? { transport: result.errors - result.timeouts } : {}),
    },
    cpuPercent: (cpu / elapsed) * 100,
    serverCpuMsPerRequest: (cpu * 1000) / total,
    dbCpuMsPerRequest: db === null ? null : (db * 1000) / total,
    peakRssMiB: peak,
  };
}
