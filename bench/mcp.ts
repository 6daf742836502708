/**
 * MCP workloads (issue 45): the same two operations through the official SDK client on /mcp and
 * through plain HTTP, closed-loop with the same number of concurrent callers, so the protocol's
 * cost shows as the difference.
 *   M1 search_tasks (MCP) · M1h GET /tasks/search (HTTP) · M2 create_task (MCP) · M2h POST /tasks (HTTP)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Board } from './seed.js';

export interface McpBenchResult {
  name: string;
  label: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

const CALLERS = 8;

const percentile = (sorted: number[], p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 10) / 10 : 0);

/** Each caller repeats `op` until the time is up; the warm-up's calls are not counted. */
async function closedLoop(name: string, label: string, ops: Array<() => Promise<boolean>>, t: { duration: number; warmup: number }): Promise<McpBenchResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const counted = start + t.warmup * 1000;
  const end = counted + t.duration * 1000;
  await Promise.all(
    ops.map(async (op) => {
      while (performance.now() < end) {
        const began = performance.now();
        const good = await op().catch(() => false);
        if (began < counted) continue;
        latencies.push(performance.now() - began);
        if (!good) errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { name, label, connections: ops.length, rps: latencies.length / t.duration, p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: latencies.length, errors };
}

export async function benchMcp(url: string, board: Board, t: { duration: number; warmup: number }, wanted: Set<string>): Promise<McpBenchResult[]> {
  const clients: Client[] = [];
  for (let i = 0; i < CALLERS; i++) {
    const client = new Client({ name: 'workboard-bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${board.session}` } } }));
    clients.push(client);
  }
  const headers = { 'service-session': board.session, 'content-type': 'application/json' };
  const ok = (r: Record<string, unknown>) => !r.isError;
  const results: McpBenchResult[] = [];
  try {
    const runs: Array<[string, string, Array<() => Promise<boolean>>]> = [
      ['M1', 'search_tasks via MCP (SDK client)', clients.map((c) => async () => ok(await c.callTool({ name: 'search_tasks', arguments: { text: 'task', project: board.projectId, limit: 20 } })))],
      ['M1h', 'GET /tasks/search (same query)', clients.map(() => async () => (await fetch(`${url}/tasks/search?q=task&projectId=${board.projectId}&limit=20`, { headers })).ok)],
      ['M2', 'create_task via MCP (SDK client)', clients.map((c) => async () => ok(await c.callTool({ name: 'create_task', arguments: { project: board.projectId, column: board.stageIds[0], title: 'Bench task via MCP' } })))],
      ['M2h', 'POST /tasks (same task)', clients.map(() => async () => (await fetch(`${url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench task', stageId: board.stageIds[0] }) })).ok)],
    ];
    for (const [name, label, ops] of runs) if (wanted.has(name) || wanted.has('M')) results.push(await closedLoop(name, label, ops, t));
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
  return results;
}
