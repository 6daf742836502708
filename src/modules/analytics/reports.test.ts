import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const ok = (res: { statusCode: number; body: string }, status = 200) => expect(res.statusCode, res.body).toBe(status);

/** A three-column board whose moves and closures sit at known days (2026-03-02 is a Monday). */
async function world() {
  const b = await f.board(3);
  const { owner } = b;
  const [todo, doing, done] = b.stages.map((s) => s.id as number) as [number, number, number];
  const worker = await f.spaceMember(owner, b.space.id, 'editor');
  const a = (await f.task(owner, todo, { name: 'a', responsibleUserId: [worker.id] })).id as number;
  const c = (await f.task(owner, todo, { name: 'c' })).id as number;
  const idle = (await f.task(owner, todo, { name: 'idle' })).id as number;
  ok(await t.as(owner).post('/tasks/move', { taskIds: [a], stageId: doing }));
  ok(await t.as(owner).post('/tasks/move', { taskIds: [a], stageId: done }));
  ok(await t.as(owner).patch(`/tasks/${a}/status`, { status: 1 }));
  ok(await t.as(owner).patch(`/tasks/${c}/status`, { status: 2 }));
  ok(await t.as(worker).post('/time-records', { taskId: a, hours: 4, date: '2026-03-03' }), 201);
  // Put the recorded facts at known times: created 1 March, a left Todo 3 March and Doing 5 March,
  // done 6 March; c rejected 4 March.
  const at = (iso: string) => sql`${iso}::timestamptz`;
  await t.sql(sql`update tasks set created_at = ${at('2026-03-01T10:00:00Z')} where id in (${a}, ${c}, ${idle})`);
  await t.sql(sql`update task_status_changes set at = ${at('2026-03-01T10:00:00Z')} where status = 0 and task_id in (${a}, ${c}, ${idle})`);
  await t.sql(sql`update task_status_changes set at = ${at('2026-03-06T10:00:00Z')} where status = 1 and task_id = ${a}`);
  await t.sql(sql`update task_status_changes set at = ${at('2026-03-04T10:00:00Z')} where status = 2 and task_id = ${c}`);
  await t.sql(sql`update task_stage_stays set entered_at = ${at('2026-03-01T10:00:00Z')} where task_id in (${a}, ${c}, ${idle}) and stage_id = ${todo}`);
  await t.sql(sql`update task_stage_stays set left_at = ${at('2026-03-03T10:00:00Z')} where task_id = ${a} and stage_id = ${todo}`);
  await t.sql(sql`update task_stage_stays set entered_at = ${at('2026-03-03T10:00:00Z')}, left_at = ${at('2026-03-05T10:00:00Z')} where task_id = ${a} and stage_id = ${doing}`);
  await t.sql(sql`update task_stage_stays set entered_at = ${at('2026-03-05T10:00:00Z')} where task_id = ${a} and stage_id = ${done}`);
  return { ...b, worker, todo, doing, done, a, c, idle };
}

const MARCH = 'dateFrom=2026-03-01&dateTo=2026-03-15';

describe('analytics reports', () => {
  it('reports a project: columns with average stays, lead and cycle time, throughput', async () => {
    const w = await world();
    const res = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report?${MARCH}`);
    ok(res);
    expect(res.json()).toEqual({
      stages: [
        { stageId: w.todo, count: 2, avgDaysInStage: 2 },
        { stageId: w.doing, count: 0, avgDaysInStage: 2 },
        { stageId: w.done, count: 1, avgDaysInStage: null },
      ],
      leadTimeDays: { median: 5, p85: 5 },
      cycleTimeDays: { median: 3, p85: 3 },
      throughput: 0.5,
      overdue: 0,
      planTime: 0,
      factTime: 4,
      byAssignee: [{ userId: w.worker.id, total: 1, done: 1, overdue: 0, planTime: 0, factTime: 4 }],
    });
    const csv = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report?${MARCH}&format=csv`);
    ok(csv);
    expect((parse(csv.body.replace(/^\uFEFF/, ''), { relax_column_count: true }) as string[][])[1]).toEqual([String(w.todo), '2', '2']);
  });

  it('measures cycle time from the column that is first when asked, after the columns are reordered', async () => {
    const w = await world();
    ok(await t.as(w.owner).patch(`/projects/${w.project.id}/stages/order`, { ids: [w.doing, w.todo, w.done] }));
    const res = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report?${MARCH}`);
    ok(res);
    // a left Doing on 5 March and was done on 6 March.
    expect(res.json()).toMatchObject({ leadTimeDays: { median: 5, p85: 5 }, cycleTimeDays: { median: 1, p85: 1 }, throughput: 0.5 });
  });

  it('counts a task finished twice in range once, by its last change, and stays that ended on partial days', async () => {
    const w = await world();
    ok(await t.as(w.owner).patch(`/tasks/${w.a}/status`, { status: 0 }));
    ok(await t.as(w.owner).patch(`/tasks/${w.a}/status`, { status: 1 }));
    const changes = await t.sql<{ id: number }>(sql`select id from task_status_changes where task_id = ${w.a} order by id`);
    const times = ['2026-03-01T10:00:00Z', '2026-03-04T10:00:00Z', '2026-03-05T10:00:00Z', '2026-03-06T10:00:00Z'];
    for (const [i, change] of changes.entries()) await t.sql(sql`update task_status_changes set at = ${times[i]}::timestamptz where id = ${change.id}`);
    const report = async (range: string) => (await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report?${range}`)).json();
    expect(await report(MARCH)).toMatchObject({ leadTimeDays: { median: 5, p85: 5 }, cycleTimeDays: { median: 3, p85: 3 }, throughput: 0.5 });
    // a left Todo at 10:00 on 3 March and Doing at 10:00 on 5 March, two days each: both on the edges of this range, none inside.
    const edges = await report('dateFrom=2026-03-03T09:00:00Z&dateTo=2026-03-05T11:00:00Z');
    expect(edges.stages.map((x: { avgDaysInStage: number | null }) => x.avgDaysInStage)).toEqual([2, 2, null]);
    const missed = await report('dateFrom=2026-03-03T11:00:00Z&dateTo=2026-03-05T09:00:00Z');
    expect(missed.stages.map((x: { avgDaysInStage: number | null }) => x.avgDaysInStage)).toEqual([null, null, null]);
  });

  it('draws the cumulative flow from the moves, one point per day with zeros', async () => {
    const w = await world();
    const res = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/flow?dateFrom=2026-03-01&dateTo=2026-03-07&interval=day`);
    ok(res);
    const counts = res.json().map((p: { from: string; stages: Array<{ count: number }> }) => [p.from.slice(0, 10), ...p.stages.map((s) => s.count)]);
    expect(counts).toEqual([
      ['2026-03-01', 3, 0, 0],
      ['2026-03-02', 3, 0, 0],
      ['2026-03-03', 2, 1, 0],
      ['2026-03-04', 2, 1, 0],
      ['2026-03-05', 2, 0, 1],
      ['2026-03-06', 2, 0, 1],
    ]);
  });

  it('gives a user series by ISO week and the tasks behind each number', async () => {
    const w = await world();
    const series = await t.as(w.worker).get(`/analytics/users/${w.worker.id}/task-series?dateFrom=2026-03-01&dateTo=2026-03-15&interval=week`);
    ok(series);
    expect(series.json()).toEqual([
      { from: '2026-03-01T00:00:00.000Z', created: 1, finished: 0, overdue: 0, factTime: 0 },
      { from: '2026-03-02T00:00:00.000Z', created: 0, finished: 1, overdue: 0, factTime: 4 },
      { from: '2026-03-09T00:00:00.000Z', created: 0, finished: 0, overdue: 0, factTime: 0 },
    ]);
    const finished = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report/tasks?${MARCH}&metric=finished`);
    ok(finished);
    expect(finished.json().map((x: { id: number }) => x.id)).toEqual([w.a]);
    const rejected = await t.as(w.owner).get(`/analytics/spaces/${w.space.id}/tasks?${MARCH}&metric=rejected`);
    expect(rejected.json().map((x: { id: number }) => x.id)).toEqual([w.c]);
    const inTodo = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report/tasks?${MARCH}&metric=total&stageId=${w.todo}&limit=1`);
    expect(inTodo.headers['x-total-count']).toBe('2');
    expect(inTodo.json().map((x: { id: number }) => x.id)).toEqual([w.c]);
    const mine = await t.as(w.owner).get(`/analytics/projects/${w.project.id}/report/tasks?${MARCH}&metric=created&responsibleId=${w.worker.id}`);
    expect(mine.json().map((x: { id: number }) => x.id)).toEqual([w.a]);
  });

  it('gives space analytics per project and the member report', async () => {
    const w = await world();
    const space = await t.as(w.owner).get(`/analytics/spaces/${w.space.id}?${MARCH}&interval=month`);
    ok(space);
    expect(space.json()).toEqual({
      points: [{ from: '2026-03-01T00:00:00.000Z', created: 3, finished: 1, overdue: 0, factTime: 4 }],
      byProject: [{ projectId: w.project.id, total: 3, done: 1, overdue: 0 }],
    });
    const members = await t.as(w.owner).get(`/analytics/members?${MARCH}&spaceId=${w.space.id}`);
    ok(members);
    expect(members.headers['x-total-count']).toBe('2');
    const rows = members.json() as Array<{ lastActivityDate: string | null }>;
    // The day is recorded when a credential is used (at most once a minute): a date or, not yet, null.
    for (const row of rows) expect(row.lastActivityDate === null || /^\d{4}-\d{2}-\d{2}$/.test(row.lastActivityDate)).toBe(true);
    expect(rows.map(({ lastActivityDate: _, ...rest }) => rest)).toEqual([
      { userId: w.owner.id, assigned: 0, finished: 0, overdue: 0, planTime: 0, factTime: 0 },
      { userId: w.worker.id, assigned: 1, finished: 1, overdue: 0, planTime: 0, factTime: 4 },
    ]);
  });

  it('refuses bad queries with 400', async () => {
    const w = await world();
    for (const url of [
      `/analytics/projects/${w.project.id}/report/tasks?metric=everything`,
      `/analytics/projects/${w.project.id}/report/tasks`,
      `/analytics/spaces/${w.space.id}?interval=year`,
      `/analytics/users/${w.worker.id}/task-series?dateFrom=2020-01-01&dateTo=2026-01-01&interval=day`,
      `/analytics/members?limit=0`,
    ]) {
      expectProblem(await t.as(w.owner).get(url), 400);
    }
  });
});

type W = Awaited<ReturnType<typeof world>>;
const ROUTES: Array<[string, (w: W) => string, (w: W) => Promise<unknown>]> = [
  ['GET /analytics/users/{userId}/task-series', (w) => `/analytics/users/${w.worker.id}/task-series`, (w) => f.spaceMember(w.owner, w.space.id, 'admin')],
  ['GET /analytics/spaces/{spaceId}', (w) => `/analytics/spaces/${w.space.id}`, (w) => f.spaceMember(w.owner, w.space.id, 'editor')],
  ['GET /analytics/spaces/{spaceId}/tasks', (w) => `/analytics/spaces/${w.space.id}/tasks?metric=created`, (w) => f.spaceMember(w.owner, w.space.id, 'editor')],
  ['GET /analytics/projects/{projectId}/report', (w) => `/analytics/projects/${w.project.id}/report`, (w) => f.spaceMember(w.owner, w.space.id, 'member')],
  ['GET /analytics/projects/{projectId}/report/tasks', (w) => `/analytics/projects/${w.project.id}/report/tasks?metric=total`, (w) => f.spaceMember(w.owner, w.space.id, 'reader')],
  ['GET /analytics/projects/{projectId}/flow', (w) => `/analytics/projects/${w.project.id}/flow`, (w) => f.spaceMember(w.owner, w.space.id, 'reader')],
  ['GET /analytics/members', (w) => `/analytics/members?spaceId=${w.space.id}`, (w) => f.spaceMember(w.owner, w.space.id, 'admin')],
];
for (const [name, url, forbidden] of ROUTES) {
  commonCases(t, name, {
    method: 'GET',
    foreignId: true,
    async setup() {
      const w = await world();
      return { url: url(w), owner: w.owner, forbidden: (await forbidden(w)) as W['owner'] };
    },
  });
}
