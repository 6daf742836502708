/**
 * `npm run bench:scale [-- --db postgres|pglite] [--tasks 100000] [--small 1000] [--duration 5] [--warmup 2] [--only S1,S3]`
 *
 * Task reads at organization scale (issue 14): do they stay flat when the organization grows a
 * hundredfold? Two organizations are measured the same way, one of `--small` tasks (all on one
 * 4-column board) and one of `--tasks` (the same 1,000-task board, the rest over 8 more projects of
 * 12 columns: about 100 columns). Their tasks are bulk-inserted in SQL with the server stopped
 * (names and descriptions drawn from a made-up vocabulary, word frequencies skewed as in real text,
 * so one word occurs in most tasks and others in few; an assignee each, a label on a third, a
 * subtask on a fifth, chat on a tenth), then VACUUM ANALYZE (PostgreSQL) or ANALYZE and the GIN
 * pending lists merged (PGlite), as autovacuum or the service's jobs would have done. Then, through HTTP past the read cache
 * (`Cache-Control: no-cache`):
 *   S1 GET /tasks/{id} of a random task (32 connections) · S2 GET /projects/{id}/tasks, the 1,000-task
 *   board (1) · S3 GET /tasks/search, a word in most tasks, first page of 20 (1) · S4 the same, two
 *   rare words (1).
 * autocannon's p50 is in whole milliseconds, so the mean is printed beside it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { freshPostgres } from './postgres.js';
import { startServer, type RunningServer } from './server.js';
import { call } from './seed.js';
import { databaseCpuSince, databaseTicks } from './workloads.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    tasks: { type: 'string', default: '100000' },
    small: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    only: { type: 'string', default: 'S1,S2,S3,S4' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const mode = values.db === 'postgres' ? 'postgres' : 'pglite';
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/workboard_bench';
const BOARD = 1000;

// A deterministic made-up vocabulary: the same words every run.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'pe', 'da', 'gu', 'zo', 'bri', 'fen', 'tor', 'lum'];
const random = rng(7);
const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');
const VOCABULARY = Array.from(new Set(Array.from({ length: 8000 }, word))).slice(0, 2000);
// Word i is drawn with probability ~ the cube-root law below: word 0 is in most tasks, the last ones in a few hundred.
const BROAD = VOCABULARY[0]!;
const NARROW = `${VOCABULARY[1999]} ${VOCABULARY[1998]}`;

/** `n` words, drawn per row (the lateral depends on the row's `g`): skewed towards the first words. */
const words = (n: string) => `(select string_agg(($6::text[])[1 + floor(power(random(), 3) * array_length($6::text[], 1))::int], ' ')
   from generate_series(1, ${n}) k where k > 0 * g)`;

/** `$1` organization, `$2` space, `$3` user, `$4` columns, `$5` their projects, `$6` vocabulary, `$7` count, `$8` label. */
const SEED = [
  `select setseed(0.42)`,
  // Reports are kept by triggers; the reads measured here do not use them (bench/analytics.ts builds them).
  `set workboard.analytics_sync = 'off'`,
  `insert into tasks (organization_id, space_id, project_id, name, description, creator_id, importance, created_at, updated_at, date_end)
   select $1, $2, ($5::bigint[])[c], ${words('3 + g % 4')}, ${words('10 + g % 20')}, $3, g % 4, ts, ts, case when g % 3 = 0 then ts + interval '10 days' end
   from generate_series(1, $7::int) g,
     lateral (select case when g <= ${BOARD} or array_length($4::bigint[], 1) = 4 then 1 + g % 4 else 5 + g % (array_length($4::bigint[], 1) - 4) end as c,
                     now() - (g % 120) * interval '1 day' - (g % 1440) * interval '1 minute' as ts) x`,
  // Ranks with gaps, as the API writes them; the column of the n-th task is computed as above.
  `insert into task_stages (organization_id, task_id, project_id, stage_id, "order")
   select $1, id, project_id, ($4::bigint[])[c], 1024 * row_number() over (partition by c order by id)
   from (select id, project_id, g, case when g <= ${BOARD} or array_length($4::bigint[], 1) = 4 then 1 + g % 4 else 5 + g % (array_length($4::bigint[], 1) - 4) end as c
         from (select id, project_id, row_number() over (order by id) as g from tasks where organization_id = $1) n) x`,
  `insert into task_assignees (organization_id, task_id, user_id) select organization_id, id, $3 from tasks where organization_id = $1`,
  `insert into task_labels (organization_id, task_id, label_id) select organization_id, id, $8 from tasks where organization_id = $1 and id % 3 = 0`,
  `insert into subtasks (organization_id, task_id, name) select organization_id, id, 'Check ' || id from tasks where organization_id = $1 and id % 5 = 0`,
  `insert into task_messages (organization_id, task_id, author_id, text)
   select t.organization_id, t.id, $3, ${words('5 + t.id % 10').replace('0 * g', '0 * t.id')}
   from tasks t, generate_series(1, 1 + (t.id / 10) % 3) g where t.organization_id = $1 and t.id % 10 = 0`,
  `reset workboard.analytics_sync`,
];

interface Org {
  session: string;
  organizationId: number;
  userId: number;
  boardId: number;
  taskIds: number[];
}

/** Organization, space, projects, columns and a label through the API; the server is stopped after. */
async function structure(server: RunningServer, count: number) {
  const reg = await call(server.url, null, 'POST', '/auth/register', { email: `scale-${Date.now()}@example.test`, password: 'benchmark password', name: 'Scale' });
  const session = reg.session as string;
  const space = await call(server.url, session, 'POST', '/spaces', { name: 'Scale' });
  const stageIds: number[] = [];
  const stageProjects: number[] = [];
  const projects = count <= BOARD ? [4] : [4, ...Array.from({ length: 8 }, () => 12)];
  let boardId = 0;
  for (const [p, columns] of projects.entries()) {
    const project = await call(server.url, session, 'POST', '/projects', { spaceId: space.id, name: p === 0 ? 'Board' : `Project ${p}` });
    if (p === 0) boardId = project.id;
    for (let i = 0; i < columns; i++) {
      stageIds.push((await call(server.url, session, 'POST', `/projects/${project.id}/stages`, { name: `Column ${i + 1}`, order: i, tasks: [] })).id);
      stageProjects.push(project.id);
    }
  }
  const label = await call(server.url, session, 'POST', '/labels', { name: 'scale', color: '#3366ff' });
  const params = [reg.organization.id, space.id, reg.user.id, `{${stageIds.join(',')}}`, `{${stageProjects.join(',')}}`, `{${VOCABULARY.join(',')}}`, count, label.id];
  return { session, organizationId: reg.organization.id as number, userId: reg.user.id as number, boardId, params };
}

/** The SEED statements on either database; numbered parameters renumbered to those each one uses. */
async function seed(dataDir: string, params: unknown[]): Promise<number[]> {
  const shape = (text: string) => {
    const used = params.map((_, i) => i + 1).filter((i) => text.includes(`$${i}`));
    return { text: text.replace(/\$(\d)/g, (_, n) => `$${used.indexOf(Number(n)) + 1}`), values: used.map((i) => params[i - 1]) };
  };
  const ids = `select id from tasks where organization_id = ${Number(params[0])} order by id`;
  if (mode === 'postgres') {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      for (const s of SEED.map(shape)) await client.query(s.text, s.values);
      await client.query('vacuum analyze');
      return (await client.query<{ id: string }>(ids)).rows.map((r) => Number(r.id));
    } finally {
      await client.end();
    }
  }
  const db = await PGlite.create(dataDir);
  try {
    for (const s of SEED.map(shape)) await db.query(s.text, s.values);
    // What the service's maintenance jobs on PGlite do every ten minutes (src/db/maintenance.ts).
    await db.query('analyze');
    await db.query(`select gin_clean_pending_list(c.oid) from pg_class c join pg_am am on am.oid = c.relam where am.amname = 'gin' and c.relnamespace = 'public'::regnamespace`);
    return (await db.query<{ id: number }>(ids)).rows.map((r) => Number(r.id));
  } finally {
    await db.close();
  }
}

interface Figure {
  org: number;
  name: string;
  label: string;
  connections: number;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  errors: number;
  cpuMs: number;
  dbCpuMs: number | null;
}

async function measure(server: RunningServer, org: Org, count: number, name: string): Promise<Figure> {
  const headers = { 'service-session': org.session, 'cache-control': 'no-cache' };
  const pick = () => org.taskIds[Math.floor(Math.random() * org.taskIds.length)]!;
  const search = (q: string) => `/tasks/search?q=${encodeURIComponent(q)}&limit=20`;
  const defs: Record<string, { label: string; connections: number; request: autocannon.Request }> = {
    S1: { label: 'GET /tasks/{id}', connections: 32, request: { method: 'GET', headers, setupRequest: (r) => ({ ...r, path: `/tasks/${pick()}` }) } },
    S2: { label: `GET /projects/{id}/tasks (${BOARD} tasks)`, connections: 1, request: { method: 'GET', headers, path: `/projects/${org.boardId}/tasks` } },
    S3: { label: `search "${BROAD}", first 20`, connections: 1, request: { method: 'GET', headers, path: search(BROAD) } },
    S4: { label: `search "${NARROW}"`, connections: 1, request: { method: 'GET', headers, path: search(NARROW) } },
  };
  const def = defs[name]!;
  const fire = (duration: number) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: server.url, connections: def.connections, duration, requests: [def.request] }, (err, r) => (err ? reject(err) : resolve(r))),
    );
  await fire(Number(values.warmup));
  const cpu = server.cpuSeconds();
  const dbBefore = databaseTicks(mode === 'postgres' ? pgUrl : undefined);
  const r = await fire(Number(values.duration));
  const n = Math.max(1, r.requests.total);
  const db = databaseCpuSince(dbBefore, mode === 'postgres' ? pgUrl : undefined);
  return {
    org: count,
    name,
    label: def.label,
    connections: def.connections,
    rps: r.requests.average,
    mean: r.latency.mean,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors,
    cpuMs: ((server.cpuSeconds() - cpu) * 1000) / n,
    dbCpuMs: db === null ? null : (db * 1000) / n,
  };
}

async function organization(count: number): Promise<Figure[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-scale-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, FILES_DIR: path.join(dataDir, 'files') };
  if (mode === 'postgres') {
    await freshPostgres(pgUrl);
    env.DATABASE_URL = pgUrl;
  }
  let server = await startServer(env, { cpuProf: null });
  try {
    const s = await structure(server, count);
    await server.stop();
    const started = performance.now();
    const taskIds = await seed(dataDir, s.params);
    console.error(`[${mode}] ${count} tasks seeded and analyzed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const cpuProf = values['cpu-prof'] ? path.join('bench', 'results', `scale-${mode}-${count}-${Date.now()}`) : null;
    server = await startServer(env, { cpuProf });
    const org: Org = { session: s.session, organizationId: s.organizationId, userId: s.userId, boardId: s.boardId, taskIds };
    const figures: Figure[] = [];
    for (const name of values.only!.split(',')) {
      const f = await measure(server, org, count, name);
      console.error(`[${mode}] ${count} ${name} ${f.label}: ${f.rps.toFixed(0)} req/s, mean ${f.mean.toFixed(2)} ms, p50 ${f.p50}, p99 ${f.p99}, errors ${f.errors}, CPU ms/req ${cost(f)}`);
      figures.push(f);
    }
    return figures;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const cost = (f: Figure) => `${f.cpuMs.toFixed(2)}${f.dbCpuMs === null ? '' : ` + ${f.dbCpuMs.toFixed(2)}`}`;

const small = await organization(Number(values.small));
const large = await organization(Number(values.tasks));
const lines = [
  `| db | workload | conns | ${values.small} tasks: req/s, mean / p50 / p99 ms | ${values.tasks} tasks: req/s, mean / p50 / p99 ms | mean ratio | CPU ms/req service + database (small → large) |`,
  '|---|---|---|---|---|---|---|',
];
for (const l of large) {
  const s = small.find((f) => f.name === l.name)!;
  // A request slower than the whole run is not in autocannon's figures at all.
  const cell = (f: Figure) =>
    f.mean === 0 ? `none answered in ${values.duration} s` : `${f.rps.toFixed(0)}, ${f.mean.toFixed(2)} / ${f.p50} / ${f.p99}${f.errors ? ` (${f.errors} errors)` : ''}`;
  lines.push(`| ${mode} | ${l.name} ${l.label} | ${l.connections} | ${cell(s)} | ${cell(l)} | ${(l.mean / s.mean).toFixed(2)} | ${cost(s)} → ${cost(l)} |`);
}
console.log(lines.join('\n'));
