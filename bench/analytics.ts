/**
 * WA: the analytics routes on a large organization. The organization, its space, project and columns
 * are made through the API; then, with the server stopped, its tasks are bulk-inserted in SQL the way
 * the API leaves them (dense positions, an assignee, column stays and status changes — the triggers
 * write those as they would for API writes — spread over four months, a third finished, time
 * records; the report rollups built once by the function the triggers call), then ANALYZE, as
 * production's autovacuum would. Each report is then measured on one
 * connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { freshPostgres } from './postgres.js';
import { startServer } from './server.js';
import type { WorkloadResult } from './workloads.js';

async function call(base: string, session: string | null, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(session ? { 'service-session': session } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${await res.text()}`);
  return res.json();
}

/** The bulk insert, in statements both databases run; `$1`… are organization, space, project, user, columns, count. */
const SEED = [
  // The report rollups are kept by triggers after every statement; a bulk load skips them and then
  // builds them once with the same function (what the migration's backfill does).
  `set workboard.analytics_sync = 'off'`,
  `insert into tasks (organization_id, space_id, project_id, name, description, creator_id, plan_time, importance, created_at, updated_at,
     date_end, date_end_without_time)
   select $1, $2, $3, 'Task ' || g, 'Seeded task ' || g, $4, g % 5, g % 4, ts, ts,
     case when g % 3 = 0 then ts + interval '10 days' end, case when g % 7 = 0 then (ts + interval '20 days')::date end
   from generate_series(1, $6::int) g, lateral (select now() - (g % 120) * interval '1 day' - (g % 1440) * interval '1 minute' as ts) t`,
  `insert into task_stages (organization_id, task_id, project_id, stage_id, "order")
   select organization_id, id, project_id, ($5::bigint[])[1 + id % 4], row_number() over (partition by id % 4 order by id) - 1
   from tasks where project_id = $3`,
  `insert into task_assignees (organization_id, task_id, user_id) select organization_id, id, $4 from tasks where project_id = $3`,
  // What the API's moves would have left: a closed stay in the first column a day long, then the current one.
  `insert into task_stage_stays (organization_id, task_id, project_id, stage_id, entered_at, left_at)
   select t.organization_id, t.id, t.project_id, ($5::bigint[])[1], t.created_at, t.created_at + interval '1 day'
   from tasks t where t.project_id = $3 and t.id % 4 <> 0`,
  `update task_stage_stays st set entered_at = t.created_at + case when t.id % 4 = 0 then interval '0' else interval '1 day' end
   from tasks t where t.id = st.task_id and st.left_at is null and st.project_id = $3`,
  `update tasks set status = case when id % 4 = 3 then 1 when id % 17 = 0 then 2 else status end,
     date_status_changed = created_at + interval '3 days' where project_id = $3 and (id % 4 = 3 or id % 17 = 0)`,
  `update task_status_changes c set at = t.created_at + interval '3 days' from tasks t where t.id = c.task_id and c.status in (1, 2) and t.project_id = $3`,
  `insert into time_records (organization_id, task_id, user_id, date, hours)
   select organization_id, id, $4, (created_at + interval '1 day')::date, 1.5 from tasks where project_id = $3 and id % 2 = 0`,
  `reset workboard.analytics_sync`,
  `select analytics_sync(array(select id from tasks where project_id = $3))`,
  `analyze`,
];

interface Org {
  session: string;
  organizationId: number;
  userId: number;
  spaceId: number;
  projectId: number;
  stageIds: number[];
}

async function seedSql(mode: string, dataDir: string, url: string, org: Org, count: number) {
  const params = [org.organizationId, org.spaceId, org.projectId, org.userId, `{${org.stageIds.join(',')}}`, count];
  const used = (text: string) => [1, 2, 3, 4, 5, 6].filter((i) => text.includes(`$${i}`)).map((i) => params[i - 1]);
  if (mode === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const text of SEED) await client.query(text.replace(/\$(\d)/g, (_, n) => `$${renumber(text, Number(n))}`), used(text));
    } finally {
      await client.end();
    }
    return;
  }
  const db = await PGlite.create(dataDir);
  try {
    for (const text of SEED) await db.query(text.replace(/\$(\d)/g, (_, n) => `$${renumber(text, Number(n))}`), used(text));
  } finally {
    await db.close();
  }
}

/** Statements use a subset of $1…$6; drivers want them numbered from 1 without gaps. */
function renumber(text: string, n: number): number {
  const present = [1, 2, 3, 4, 5, 6].filter((i) => text.includes(`$${i}`));
  return present.indexOf(n) + 1;
}

async function measure(base: string, session: string, name: string, label: string, url: string, t: { duration: number; warmup: number }, server: Awaited<ReturnType<typeof startServer>>): Promise<WorkloadResult> {
  const run = (duration: number) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: base + url, connections: 1, duration, headers: { 'service-session': session } }, (err, r) => (err ? reject(err) : resolve(r))),
    );
  if (t.warmup > 0) await run(t.warmup);
  const cpu = server.cpuSeconds();
  const started = performance.now();
  const r = await run(t.duration);
  const elapsed = (performance.now() - started) / 1000;
  return {
    name,
    label,
    connections: 1,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bytesPerRequest: Math.round(r.throughput.total / Math.max(1, r.requests.total)),
    errors: r.non2xx + r.errors,
    errorKinds: {},
    cpuPercent: ((server.cpuSeconds() - cpu) / elapsed) * 100,
    serverCpuMsPerRequest: ((server.cpuSeconds() - cpu) * 1000) / Math.max(1, r.requests.total),
    dbCpuMsPerRequest: null,
    peakRssMiB: server.rssMiB(),
  };
}

/**
 * A server on a fresh database (PGlite in `dataDir`, or the emptied PostgreSQL database) holding
 * one organization of `count` bulk-seeded tasks; the server is running again when this answers.
 */
export async function largeOrganization(mode: string, pgUrl: string, dataDir: string, count: number) {
  const env: Record<string, string> = { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files') };
  if (mode === 'postgres') {
    await freshPostgres(pgUrl);
    env.DATABASE_URL = pgUrl;
  }
  let server = await startServer(env, { cpuProf: null });
  const reg = await call(server.url, null, 'POST', '/auth/register', { email: `bench-${Date.now()}@example.test`, password: 'benchmark password', name: 'Analyst' });
  const session = reg.session as string;
  const space = await call(server.url, session, 'POST', '/spaces', { name: 'Analytics' });
  const project = await call(server.url, session, 'POST', '/projects', { spaceId: space.id, name: 'Big board' });
  const stageIds: number[] = [];
  for (const name of ['Todo', 'Doing', 'Review', 'Done']) stageIds.push((await call(server.url, session, 'POST', `/projects/${project.id}/stages`, { name, order: stageIds.length, tasks: [] })).id);
  await server.stop();
  const org: Org = { session, organizationId: reg.organization.id, userId: reg.user.id, spaceId: space.id, projectId: project.id, stageIds };
  const started = performance.now();
  await seedSql(mode, dataDir, pgUrl, org, count);
  const seedSeconds = (performance.now() - started) / 1000;
  server = await startServer(env, { cpuProf: null });
  return { server, org, env, seedSeconds };
}

export async function benchAnalytics(mode: string, pgUrl: string, count: number, t: { duration: number; warmup: number }): Promise<{ notes: string[]; results: WorkloadResult[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-analytics-'));
  try {
    const { server, org, seedSeconds } = await largeOrganization(mode, pgUrl, dataDir, count);
    const session = org.session;
    const notes = [`analytics: ${count} tasks bulk-seeded and analyzed in ${seedSeconds.toFixed(1)} s`];
    console.error(`[${mode}] ${notes[0]}`);
    try {
      const q = 'dateFrom=' + new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      const q90 = 'dateFrom=' + new Date(Date.now() - 91 * 86_400_000).toISOString().slice(0, 10) + '&interval=week';
      const P = `/analytics/projects/${org.projectId}`;
      const routes: Array<[string, string]> = [
        ['project task report', `${P}/task-report?${q}`],
        ['space task report', `/analytics/spaces/${org.spaceId}/task-report?${q}`],
        ['user task report', `/analytics/users/${org.userId}/task-report?${q}`],
        ['user series, 13 weeks', `/analytics/users/${org.userId}/task-series?${q90}`],
        ['space analytics, 13 weeks', `/analytics/spaces/${org.spaceId}?${q90}`],
        ['space tasks, overdue, first page', `/analytics/spaces/${org.spaceId}/tasks?${q}&metric=overdue`],
        ['project report', `${P}/report?${q}`],
        ['report tasks, finished, first page', `${P}/report/tasks?${q}&metric=finished`],
        ['member report', `/analytics/members?${q}`],
        ['cumulative flow, 13 weeks', `${P}/flow?${q90}`],
      ];
      const results: WorkloadResult[] = [];
      for (const [i, [label, url]] of routes.entries()) {
        const r = await measure(server.url, session, `WA${i + 1}`, `${label} (${count} tasks)`, url, t, server);
        console.error(`[${mode}] WA${i + 1} ${label}: p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}`);
        results.push(r);
      }
      return { notes, results };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
