import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './net.js';
import { exited, seedDataDir, startServerProcess } from './server-process.js';

/**
 * Concurrent writers (creates, moves, messages, time records) through HTTP, a SIGKILL at a random
 * moment, a restart on the same data: every acknowledged write is there and nothing is half-written.
 * On PostgreSQL when DATABASE_URL is set, else on an embedded data directory. KILL_ROUNDS repeats it.
 */
const databaseUrl = process.env.DATABASE_URL || '';
const dataDir = seedDataDir(mkdtempSync(path.join(tmpdir(), 'workboard-kill-')));
const ROUNDS = Number(process.env.KILL_ROUNDS ?? 1);
const WRITERS = 6;
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const startServer = (port: number) =>
  startServerProcess(port, { DATA_DIR: dataDir, API_RATE_LIMIT_PER_MINUTE: '1000000', JOBS_ENABLED: 'false', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }, children);

/** What the writers were told: acknowledged writes, and each writer's request in flight at the kill. */
interface Ledger {
  tasks: Map<number, string>;
  messages: Set<number>;
  records: Set<number>;
  // taskId → the stage of the last acknowledged move (or where it was made), and an unanswered target.
  stages: Map<number, { acked: number; inFlight: number | null }>;
}

/** Invariants of one organization's rows that no crash may break. Each query counts violations. */
const INVARIANTS: Record<string, string> = {
  'task without a column row': `select count(*)::int as n from tasks t where t.organization_id = $1 and not exists (select 1 from task_stages s where s.task_id = t.id)`,
  'task without its creation history': `select count(*)::int as n from tasks t where t.organization_id = $1 and not exists (select 1 from task_history h where h.task_id = t.id and h.type = 0)`,
  'task without task.created': `select count(*)::int as n from tasks t where t.organization_id = $1 and not exists (select 1 from events e where e.organization_id = $1 and e.type = 'task.created' and e.task_id = t.id)`,
  'task.created without its task': `select count(*)::int as n from events e where e.organization_id = $1 and e.type = 'task.created' and not exists (select 1 from tasks t where t.id = e.task_id)`,
  'moves and task.moved disagree': `select count(*)::int as n from tasks t where t.organization_id = $1 and
      (select count(*) from task_history h where h.task_id = t.id and h.type = 3) <> (select count(*) from events e where e.organization_id = $1 and e.type = 'task.moved' and e.task_id = t.id)`,
  'messages and message.created disagree': `select abs((select count(*) from task_messages where organization_id = $1) - (select count(*) from events where organization_id = $1 and type = 'message.created'))::int as n`,
  'time records and time-record.created disagree': `select abs((select count(*) from time_records where organization_id = $1) - (select count(*) from events where organization_id = $1 and type = 'time-record.created'))::int as n`,
  'event ids with gaps': `select (coalesce(max(id), 0) - count(*))::int as n from events where organization_id = $1`,
  'event counter behind the log': `select count(*)::int as n from event_counters c where c.organization_id = $1 and c.last_id <> (select coalesce(max(id), 0) from events where organization_id = $1)`,
  // Positions are ranks with gaps (tasks/board/ranks.ts): what must hold is that every task on a board has one.
  'task on a board without a position': `select count(*)::int as n from task_stages ts join tasks t on t.id = ts.task_id
      where ts.organization_id = $1 and t.archived_at is null and ts."order" is null`,
};

type Query = (text: string, params: unknown[]) => Promise<number>;

/** Runs counting queries on the database, the embedded one only while no server holds it. */
async function withCounts<T>(fn: (count: Query) => Promise<T>): Promise<T> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await fn(async (text, params) => (await client.query<{ n: number }>(text, params)).rows[0]!.n);
    } finally {
      await client.end();
    }
  }
  const db = await PGlite.create(dataDir);
  try {
    return await fn(async (text, params) => (await db.query<{ n: number }>(text, params)).rows[0]!.n);
  } finally {
    await db.close();
  }
}

/** The invariants broken (a count per kind), and how many acknowledged messages and records exist. */
async function inspect(organizationId: number, ledger: Ledger) {
  return withCounts(async (count) => {
    const broken: Record<string, number> = {};
    for (const [name, q] of Object.entries(INVARIANTS)) broken[name] = await count(q, [organizationId]);
    const messages = await count(`select count(*)::int as n from task_messages where organization_id = $1 and id = any($2::bigint[])`, [organizationId, [...ledger.messages]]);
    const records = await count(`select count(*)::int as n from time_records where organization_id = $1 and id = any($2::bigint[])`, [organizationId, [...ledger.records]]);
    return { broken, messages, records };
  });
}

describe('acknowledged writes survive a kill under load', () => {
  it(`keeps every acknowledged write and nothing half-written (${ROUNDS} kills)`, { timeout: 120_000 + ROUNDS * 90_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server = await startServer(port);
    const call = async (method: string, url: string, body: unknown, session?: string) => {
      const res = await fetch(base + url, {
        method,
        headers: { 'content-type': 'application/json', ...(session ? { 'service-session': session } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> };
    };
    const reg = await call('POST', '/auth/register', { email: `kill-${Date.now()}@example.test`, password: 'a long password', name: 'Killer' });
    expect(reg.status).toBe(201);
    const session = reg.body.session as string;
    const organizationId = reg.body.organization.id as number;
    const space = await call('POST', '/spaces', { name: 'Kill' }, session);
    const project = await call('POST', '/projects', { spaceId: space.body.id, name: 'Kill' }, session);
    const stageIds: number[] = [];
    for (const name of ['Todo', 'Doing', 'Done']) stageIds.push((await call('POST', `/projects/${project.body.id}/stages`, { name, order: stageIds.length }, session)).body.id);
    const ledger: Ledger = { tasks: new Map(), messages: new Set(), records: new Set(), stages: new Map() };
    const owned: number[][] = Array.from({ length: WRITERS }, () => []);
    for (let w = 0; w < WRITERS; w++) {
      const res = await call('POST', '/tasks', { name: `seed ${w}`, stageId: stageIds[0] }, session);
      expect(res.status).toBe(201);
      owned[w]!.push(res.body.task.id);
      ledger.tasks.set(res.body.task.id, `seed ${w}`);
      ledger.stages.set(res.body.task.id, { acked: stageIds[0]!, inFlight: null });
    }

    for (let round = 0; round < ROUNDS; round++) {
      let stop = false;
      let acknowledged = 0;
      // Each writer works on its own tasks in sequence, so its one unanswered request is known.
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const mine = owned[w]!;
          const taskId = mine[i % mine.length]!;
          try {
            switch (i % 4) {
              case 0: {
                const name = `r${round} w${w} #${i}`;
                const res = await call('POST', '/tasks', { name, stageId: stageIds[i % 3] }, session);
                if (res.status !== 201) throw new Error(`create answered ${res.status}`);
                ledger.tasks.set(res.body.task.id, name);
                ledger.stages.set(res.body.task.id, { acked: stageIds[i % 3]!, inFlight: null });
                mine.push(res.body.task.id);
                break;
              }
              case 1: {
                const state = ledger.stages.get(taskId)!;
                const target = stageIds[(stageIds.indexOf(state.acked) + 1) % 3]!;
                state.inFlight = target;
                const res = await call('POST', '/tasks/move', { taskIds: [taskId], stageId: target }, session);
                if (res.status !== 200) throw new Error(`move answered ${res.status}`);
                ledger.stages.set(taskId, { acked: target, inFlight: null });
                break;
              }
              case 2: {
                const res = await call('POST', `/tasks/${taskId}/messages`, { text: `hello ${i}` }, session);
                if (res.status !== 201) throw new Error(`message answered ${res.status}`);
                ledger.messages.add(res.body.id);
                break;
              }
              default: {
                const res = await call('POST', '/time-records', { taskId, hours: 0.25, date: '2026-11-24' }, session);
                if (res.status !== 201) throw new Error(`time record answered ${res.status}`);
                ledger.records.add(res.body.record.id);
              }
            }
            acknowledged++;
          } catch (error) {
            if (stop) return;
            throw error;
          }
        }
      };
      const running = Array.from({ length: WRITERS }, (_, w) => writer(w));
      // A random moment once the load runs: after 10 to 60 acknowledged writes (a cold start is slow).
      const killAt = 10 + Math.floor(Math.random() * 50);
      const deadline = Date.now() + 60_000;
      while (acknowledged < killAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      stop = true;
      server.kill('SIGKILL');
      await exited(server);
      await Promise.all(running);
      expect(acknowledged, 'the writers got answers before the kill').toBeGreaterThan(0);

      server = await startServer(port);
      for (const [taskId, name] of ledger.tasks) {
        const res = await call('GET', `/tasks/${taskId}`, undefined, session);
        expect(res.status, `acknowledged task ${taskId}`).toBe(200);
        expect(res.body.name).toBe(name);
        const state = ledger.stages.get(taskId)!;
        const stageId = (res.body.stages as Array<{ stageId: number }>)[0]!.stageId;
        expect([state.acked, state.inFlight], `task ${taskId} stands where it was last moved`).toContain(stageId);
        ledger.stages.set(taskId, { acked: stageId, inFlight: null });
      }
      server.kill('SIGTERM');
      await exited(server);
      const found = await inspect(organizationId, ledger);
      expect(found.broken, `round ${round}: nothing half-written`).toEqual(Object.fromEntries(Object.keys(INVARIANTS).map((k) => [k, 0])));
      expect({ messages: found.messages, records: found.records }, `round ${round}: acknowledged messages and time records`).toEqual({
        messages: ledger.messages.size,
        records: ledger.records.size,
      });
      server = await startServer(port);
    }
    server.kill('SIGTERM');
    await exited(server);
  });
});
