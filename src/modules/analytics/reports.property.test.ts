import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { expectRollupsRebuilt } from './analytics.fixtures.js';

/**
 * Random boards built through HTTP (tasks created, moved within and between two projects, finished,
 * rejected, reopened, dated, assigned, archived, deleted, time recorded; one task then also placed in
 * the second project), their facts then backdated over March 2026, and every number of the reports
 * checked against a brute-force count over the rows — every drill-down against the set it counts —
 * and the rollups, kept by the queue's syncs through all of that, against the rollups rebuilt from scratch.
 */
const t = useTestApp();
const f = factories(t);
const DAY = 86_400_000;
const MARCH = Date.UTC(2026, 2, 1);

type Command =
  | { kind: 'create'; stage: number; assigned: boolean }
  | { kind: 'move'; task: number; stage: number }
  | { kind: 'status'; task: number; status: 0 | 1 | 2 }
  | { kind: 'due'; task: number; day: number | null; dateOnly: boolean }
  | { kind: 'record'; task: number; day: number; hours: number }
  | { kind: 'archive'; task: number }
  | { kind: 'away'; task: number }
  | { kind: 'delete'; task: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), stage: fc.nat(2), assigned: fc.boolean() }),
  fc.record({ kind: fc.constant('move' as const), task: fc.nat(), stage: fc.nat(2) }),
  fc.record({ kind: fc.constant('status' as const), task: fc.nat(), status: fc.constantFrom(0 as const, 1 as const, 2 as const) }),
  fc.record({ kind: fc.constant('due' as const), task: fc.nat(), day: fc.option(fc.nat(30), { nil: null }), dateOnly: fc.boolean() }),
  fc.record({ kind: fc.constant('record' as const), task: fc.nat(), day: fc.nat(30), hours: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('archive' as const), task: fc.nat() }),
  fc.record({ kind: fc.constant('away' as const), task: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), task: fc.nat() }),
);

interface Rows {
  tasks: Array<{ id: number; created: number; deadline: number | null; archived: boolean; status: number }>;
  changes: Array<{ id: number; task: number; status: number; at: number }>;
  stays: Array<{ task: number; stage: number; entered: number; left: number | null }>;
  records: Array<{ task: number; user: number | null; day: number; hours: number }>;
  assignees: Array<{ task: number; user: number }>;
}

/** The rows of the tasks in `projectIds` (stays: of the first project only). */
async function readRows(projectIds: number[]): Promise<Rows> {
  const ms = (v: unknown) => new Date(v as string).getTime();
  const projectId = projectIds[0]!;
  const inProject = sql`(select task_id from task_stages where project_id = any(${`{${projectIds.join(',')}}`}::bigint[]))`;
  const tasks = await t.sql<Record<string, unknown>>(sql`select id, created_at, coalesce(date_end, (date_end_without_time + 1)::timestamp at time zone 'UTC') as deadline,
    archived_at is not null as archived, status from tasks where id in ${inProject}`);
  const changes = await t.sql<Record<string, unknown>>(sql`select id, task_id, status, at from task_status_changes where task_id in ${inProject}`);
  const stays = await t.sql<Record<string, unknown>>(sql`select task_id, stage_id, entered_at, left_at from task_stage_stays where project_id = ${projectId}`);
  const records = await t.sql<Record<string, unknown>>(sql`select task_id, user_id, date, hours from time_records where task_id in ${inProject}`);
  const assignees = await t.sql<Record<string, unknown>>(sql`select task_id, user_id from task_assignees where task_id in ${inProject}`);
  return {
    tasks: tasks.map((r) => ({ id: Number(r.id), created: ms(r.created_at), deadline: r.deadline === null ? null : ms(r.deadline), archived: Boolean(r.archived), status: Number(r.status) })),
    changes: changes.map((r) => ({ id: Number(r.id), task: Number(r.task_id), status: Number(r.status), at: ms(r.at) })),
    stays: stays.map((r) => ({ task: Number(r.task_id), stage: Number(r.stage_id), entered: ms(r.entered_at), left: r.left_at === null ? null : ms(r.left_at) })),
    records: records.map((r) => ({ task: Number(r.task_id), user: r.user_id === null ? null : Number(r.user_id), day: Date.parse(`${String(r.date).slice(0, 10)}T00:00:00Z`), hours: Number(r.hours) })),
    assignees: assignees.map((r) => ({ task: Number(r.task_id), user: Number(r.user_id) })),
  };
}

/** The definitions of the route descriptions, counted the slow way. */
function expected(rows: Rows, from: number, to: number, now: number) {
  const scope = rows.tasks.filter((x) => !x.archived);
  const ids = new Set(scope.map((x) => x.id));
  const closed = (status: number) => [...new Set(rows.changes.filter((c) => ids.has(c.task) && c.status === status && c.at >= from && c.at < to).map((c) => c.task))].sort((a, b) => a - b);
  const statusAt = (task: number, m: number) =>
    rows.changes.filter((c) => c.task === task && c.at < m).sort((a, b) => a.at - b.at || a.id - b.id).at(-1)?.status ?? 0;
  const overdueAt = (m: number) => scope.filter((x) => x.created < m && x.deadline !== null && x.deadline < m && ![1, 2].includes(statusAt(x.id, m))).map((x) => x.id).sort((a, b) => a - b);
  const m = Math.min(to, now);
  const records = rows.records.filter((r) => ids.has(r.task) && r.day >= from && r.day < to);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    total: scope.map((x) => x.id).sort((a, b) => a - b),
    created: scope.filter((x) => x.created >= from && x.created < to).map((x) => x.id).sort((a, b) => a - b),
    finished: closed(1),
    rejected: closed(2),
    overdue: overdueAt(m),
    factTime: sum(records.map((r) => r.hours)),
    byStatus: [0, 1, 2, 3].map((status) => ({ status, count: scope.filter((x) => x.status === status).length })),
    overdueAt,
    ids,
  };
}

/** percentile_cont of a set. */
function percentile(values: number[], p: number): number {
  const a = [...values].sort((x, y) => x - y);
  const at = p * (a.length - 1);
  const lo = Math.floor(at);
  return a[lo]! + (a[Math.ceil(at)]! - a[lo]!) * (at - lo);
}

/** The project report's durations and stays, by the route description: stays of the project, its tasks' changes. */
function expectedFlow(rows: Rows, from: number, to: number, firstColumn: number) {
  const spread = (xs: number[]) => (xs.length === 0 ? null : { median: percentile(xs, 0.5), p85: percentile(xs, 0.85) });
  const lead: number[] = [];
  const cycle: number[] = [];
  for (const task of rows.tasks.filter((x) => !x.archived)) {
    const done = rows.changes.filter((c) => c.task === task.id && c.status === 1 && c.at >= from && c.at < to).sort((a, b) => a.at - b.at || a.id - b.id).at(-1);
    if (!done) continue;
    lead.push((done.at - task.created) / DAY);
    const left = rows.stays.filter((s) => s.task === task.id && s.stage === firstColumn && s.left !== null).map((s) => s.left!);
    if (left.length > 0) cycle.push((done.at - Math.min(...left)) / DAY);
  }
  const stays = (stage: number) => rows.stays.filter((s) => s.stage === stage && s.left !== null && s.left >= from && s.left < to).map((s) => (s.left! - s.entered) / DAY);
  const avg = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
  return { lead: spread(lead), cycle: spread(cycle), finished: lead.length, avgDays: (stage: number) => avg(stays(stage)) };
}

/** A figure the report rounds to two decimals, against the exact one. */
function expectRounded(got: number | null, exact: number | null, what: string) {
  if (exact === null) return expect(got, what).toBeNull();
  expect(Math.abs(got! - exact), `${what}: ${got} for ${exact}`).toBeLessThanOrEqual(0.005 + 1e-9);
}

async function play(commands: Command[]) {
  const b = await f.board(3);
  const { owner } = b;
  const stages = b.stages.map((s) => s.id as number);
  const worker = await f.spaceMember(owner, b.space.id, 'editor');
  const second = await f.project(owner, b.space.id, 'Second');
  const away = (await f.stage(owner, second.id)).id as number;
  const tasks: number[] = [];
  const deleted = new Set<number>();
  for (const c of commands) {
    const task = tasks.length ? tasks[('task' in c ? c.task : 0) % tasks.length]! : null;
    if (c.kind === 'create') tasks.push((await f.task(owner, stages[c.stage]!, { name: 'p', ...(c.assigned ? { responsibleUserId: [worker.id] } : {}) })).id as number);
    else if (task === null) continue;
    else if (c.kind === 'move') await t.as(owner).post('/tasks/move', { taskIds: [task], stageId: stages[c.stage] });
    else if (c.kind === 'away') await t.as(owner).post('/tasks/move', { taskIds: [task], stageId: away });
    else if (c.kind === 'delete') {
      if ((await t.as(owner).delete(`/tasks/${task}`)).statusCode === 204) deleted.add(task);
    }
    else if (c.kind === 'status') await t.as(owner).patch(`/tasks/${task}/status`, { status: c.status });
    else if (c.kind === 'due') {
      const at = c.day === null ? null : new Date(MARCH + c.day * DAY + 12 * 3_600_000).toISOString();
      await t.as(owner).patch(`/tasks/${task}/dates`, c.dateOnly ? { dateEndWithoutTime: at?.slice(0, 10) ?? null, dateEnd: null } : { dateEnd: at, dateEndWithoutTime: null });
    } else if (c.kind === 'record') await t.as(worker).post('/time-records', { taskId: task, hours: c.hours, date: new Date(MARCH + c.day * DAY).toISOString().slice(0, 10) });
    else await t.as(owner).patch(`/tasks/${task}/archive`, { stageId: (await t.as(owner).get(`/tasks/${task}`)).json().stages?.[0]?.stageId ?? stages[0] });
  }
  const alive = tasks.filter((id) => !deleted.has(id));
  // A task shown in both projects (no route places one so; rows may): the space counts it once.
  const [shared] = await t.sql<{ id: number }>(sql`select task_id as id from task_stages where project_id = ${b.project.id} and task_id = any(${`{${alive.join(',')}}`}::bigint[]) order by task_id limit 1`);
  if (shared) {
    await t.sql(sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
      values (${owner.organizationId}, ${shared.id}, ${second.id}, ${away}, null, false) on conflict (task_id, project_id) do nothing`);
  }
  return { ...b, stages, worker, second, tasks: alive };
}

/** Spreads each task's facts over March in their order: created, then its changes and stays, hours apart. */
async function spreadOverMarch(tasks: number[], seed: number) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (const id of tasks) {
    let at = MARCH + Math.floor(next() * 20 * DAY);
    const when = () => new Date((at += Math.floor(next() * 3 * DAY) + 1000)).toISOString();
    const created = when();
    await t.sql(sql`update tasks set created_at = ${created}::timestamptz where id = ${id}`);
    const facts = await t.sql<{ kind: string; id: number }>(sql`
      select 'change' as kind, id from task_status_changes where task_id = ${id}
      union all select 'stay' as kind, id from task_stage_stays where task_id = ${id} order by 1, 2`);
    for (const fact of facts.filter((x) => x.kind === 'change')) {
      const first = fact.id === facts.find((x) => x.kind === 'change')!.id;
      await t.sql(sql`update task_status_changes set at = ${first ? created : when()}::timestamptz where id = ${fact.id}`);
    }
    let entered = created;
    for (const fact of facts.filter((x) => x.kind === 'stay')) {
      const left = when();
      await t.sql(sql`update task_stage_stays set entered_at = ${entered}::timestamptz, left_at = case when left_at is null then null else ${left}::timestamptz end where id = ${fact.id}`);
      entered = left;
    }
  }
}

describe('analytics against a brute-force count', () => {
  it('agrees on every number, series point and drill-down of random boards', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 24 }), fc.nat(30), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 1000 }), async (commands, startDay, days, seed) => {
        const w = await play([{ kind: 'create', stage: 0, assigned: true }, ...commands]);
        await spreadOverMarch(w.tasks, seed);
        const from = MARCH + (startDay - 5) * DAY;
        const to = from + days * DAY;
        const range = `dateFrom=${new Date(from).toISOString().slice(0, 10)}&dateTo=${new Date(to).toISOString().slice(0, 10)}`;
        const rows = await readRows([w.project.id]);
        const want = expected(rows, from, to, Date.now());
        const spaceRows = await readRows([w.project.id, w.second.id]);

        const report = (await t.as(w.owner).get(`/analytics/projects/${w.project.id}/task-report?${range}`)).json();
        expect(report).toMatchObject({
          total: want.total.length,
          created: want.created.length,
          finished: want.finished.length,
          overdue: want.overdue.length,
          byStatus: want.byStatus,
        });
        expect(report.factTime).toBeCloseTo(want.factTime, 6);
        for (const metric of ['total', 'created', 'finished', 'rejected', 'overdue'] as const) {
          const list = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report/tasks?${range}&metric=${metric}&limit=500`);
          expect(list.json().map((x: { id: number }) => x.id), metric).toEqual(want[metric]);
        }

        const numbers = (want: ReturnType<typeof expected>) => ({
          total: want.total.length, created: want.created.length, finished: want.finished.length, overdue: want.overdue.length, byStatus: want.byStatus,
        });
        const space = (await t.as(w.owner).get(`/analytics/spaces/${w.space.id}/task-report?${range}`)).json();
        const wantSpace = expected(spaceRows, from, to, Date.now());
        expect(space, 'space report').toMatchObject(numbers(wantSpace));
        expect(space.factTime).toBeCloseTo(wantSpace.factTime, 6);
        const assigned = new Set(spaceRows.assignees.filter((a) => a.user === w.worker.id).map((a) => a.task));
        const user = (await t.as(w.owner).get(`/analytics/users/${w.worker.id}/task-report?${range}`)).json();
        expect(user, 'user report').toMatchObject(numbers(expected({ ...spaceRows, tasks: spaceRows.tasks.filter((x) => assigned.has(x.id)) }, from, to, Date.now())));

        const series = (await t.as(w.owner).get(`/analytics/spaces/${w.space.id}?${range}&interval=day`)).json().points as Array<Record<string, number | string>>;
        expect(series).toHaveLength(days);
        series.forEach((point, i) => {
          const lo = from + i * DAY;
          const day = expected(spaceRows, lo, lo + DAY, Date.now());
          expect(point, `day ${i}`).toMatchObject({ created: day.created.length, finished: day.finished.length, overdue: day.overdue.length });
        });

        const flow = (await t.as(w.owner).get(`/analytics/projects/${w.project.id}/flow?${range}&interval=day`)).json() as Array<{ stages: Array<{ stageId: number; count: number }> }>;
        const archivedAt = new Map((await t.sql<{ id: number; at: string | null }>(sql`select id, archived_at as at from tasks where id = any(${`{${w.tasks.join(',')}}`}::bigint[])`)).map((r) => [Number(r.id), r.at === null ? null : new Date(r.at).getTime()]));
        flow.forEach((point, i) => {
          const m = Math.min(from + (i + 1) * DAY, Date.now());
          for (const { stageId, count } of point.stages) {
            const inside = rows.stays.filter((s) => s.stage === stageId && s.entered < m && (s.left === null || s.left >= m) && (archivedAt.get(s.task) == null || archivedAt.get(s.task)! >= m));
            expect(count, `flow day ${i} column ${stageId}`).toBe(inside.length);
          }
        });
        const project = (await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report?${range}`)).json();
        const flowWant = expectedFlow(rows, from, to, w.stages[0]!);
        for (const stage of project.stages as Array<{ stageId: number; avgDaysInStage: number | null }>) expectRounded(stage.avgDaysInStage, flowWant.avgDays(stage.stageId), `days in ${stage.stageId}`);
        for (const [name, want] of [['leadTimeDays', flowWant.lead], ['cycleTimeDays', flowWant.cycle]] as const) {
          if (want === null) expect(project[name], name).toBeNull();
          else for (const p of ['median', 'p85'] as const) expectRounded(project[name]?.[p], want[p], `${name} ${p}`);
        }
        expectRounded(project.throughput, flowWant.finished / (days / 7), 'throughput');
        await expectRollupsRebuilt(t, w.owner.organizationId);
      }),
      { numRuns: Number(process.env.ANALYTICS_RUNS ?? 8), seed: Number(process.env.ANALYTICS_SEED ?? 20261125) },
    );
  });
});
