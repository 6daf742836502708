import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { boardWithRoles, expectHistory, expectTaskForm, historyOf, spaceMember } from '../tasks/tasks.fixtures.js';

const t = useTestApp();

const RECORD_KEYS = ['comment', 'createdAt', 'date', 'hours', 'id', 'source', 'taskId', 'updatedAt', 'userId'];

async function withTask() {
  const b = await boardWithRoles(t);
  const task = await b.f.task(b.owner, b.stageIds[0]!);
  return { ...b, taskId: Number(task.id) };
}

async function logged(user: Parameters<typeof t.as>[0], taskId: number, hours: number, date = '2026-03-02') {
  const res = await t.as(user).post('/time-records', { taskId, hours, date });
  expect(res.statusCode).toBe(201);
  return res.json().record as { id: number };
}

const factTime = async (taskId: number) =>
  Number((await t.sql<{ s: number }>(sql`select coalesce(sum(hours), 0)::float8 as s from time_records where task_id = ${taskId}`))[0]!.s);

describe('POST /time-records', () => {
  it('logs time (201 {record, task, history 14}); factTime is the sum of the records', async () => {
    const b = await withTask();
    await logged(b.owner, b.taskId, 1.5);
    const res = await t.as(b.member).post('/time-records', { taskId: b.taskId, hours: 2.25, date: '2026-03-03', comment: 'review' });
    expect(res.statusCode).toBe(201);
    const { record, task, history } = res.json();
    expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
    expect(record).toMatchObject({ taskId: b.taskId, userId: b.member.id, date: '2026-03-03', hours: 2.25, comment: 'review', source: 'manual' });
    expectTaskForm(task);
    expect(task.factTime).toBe(3.75);
    expectHistory(history, b.taskId, 14);
    expect(history).toMatchObject({ userId: b.member.id, projectName: 'Project', taskName: 'Task' });
    expect((await historyOf(t, b.taskId)).map((h) => h.type)).toEqual([0, 14, 14]);
  });

  it('refuses hours out of (0, 24] and a malformed date with 400, and an archived task with 409', async () => {
    const b = await withTask();
    for (const body of [{ hours: 0 }, { hours: 24.5 }, { hours: 1, date: '2026-13-01' }, { hours: 1, date: 'yesterday' }]) {
      expectProblem(await t.as(b.owner).post('/time-records', { taskId: b.taskId, date: '2026-03-02', ...body }), 400);
    }
    await t.sql(sql`update tasks set archived_at = now() where id = ${b.taskId}`);
    expectProblem(await t.as(b.owner).post('/time-records', { taskId: b.taskId, hours: 1, date: '2026-03-02' }), 409, 'CONFLICT');
    expect(await factTime(b.taskId)).toBe(0);
  });

  commonCases(t, 'POST /time-records', {
    method: 'POST',
    foreignId: true,
    async setup() {
      const b = await withTask();
      return { url: '/time-records', owner: b.owner, body: { taskId: b.taskId, hours: 1, date: '2026-03-02' }, badBody: { taskId: b.taskId, hours: -1, date: '2026-03-02' }, forbidden: b.reader };
    },
  });
});

describe('GET /time-records', () => {
  it('lists records of readable tasks only, filtered and paged with X-Total-Count and Link', async () => {
    const b = await withTask();
    const other = await b.f.task(b.owner, b.stageIds[1]!, { name: 'Other' });
    await logged(b.owner, b.taskId, 1, '2026-03-01');
    await logged(b.member, b.taskId, 2, '2026-03-02');
    await logged(b.member, Number(other.id), 3, '2026-03-03');
    // A space the reader is not in: its records stay hidden.
    const hiddenSpace = await b.f.space(b.owner, 'Hidden');
    const hiddenProject = await b.f.project(b.owner, Number(hiddenSpace.id));
    const hiddenStage = await b.f.stage(b.owner, Number(hiddenProject.id));
    const hidden = await b.f.task(b.owner, Number(hiddenStage.id));
    await logged(b.owner, Number(hidden.id), 4);

    const all = await t.as(b.reader).get('/time-records');
    expect(all.statusCode).toBe(200);
    expect(all.json().map((r: { hours: number }) => r.hours)).toEqual([3, 2, 1]);
    expect(all.headers['x-total-count']).toBe('3');
    expect((await t.as(b.owner).get('/time-records')).json()).toHaveLength(4);

    const page = await t.as(b.reader).get('/time-records?limit=2');
    expect(page.json()).toHaveLength(2);
    expect(page.headers.link).toBe('</time-records?limit=2&offset=2>; rel="next"');

    const q = (s: string) => t.as(b.reader).get(`/time-records?${s}`).then((r) => r.json().map((x: { hours: number }) => x.hours));
    expect(await q(`taskId=${b.taskId}`)).toEqual([2, 1]);
    expect(await q(`userId=${b.member.id}`)).toEqual([3, 2]);
    expect(await q(`projectId=${b.project.id}&dateFrom=2026-03-02&dateTo=2026-03-02`)).toEqual([2]);
    expectProblem(await t.as(b.reader).get(`/time-records?taskId=${hidden.id}`), 404);
    expectProblem(await t.as(b.reader).get('/time-records?dateFrom=soon'), 400);
  });

  commonCases(t, 'GET /time-records', {
    method: 'GET',
    foreignId: true,
    async setup() {
      const b = await withTask();
      return { url: `/time-records?taskId=${b.taskId}`, owner: b.owner };
    },
  });
});

describe('PATCH /time-records/{recordId}', () => {
  it('changes own records as member and any as editor; answers {record, task, history 14}', async () => {
    const b = await withTask();
    const own = await logged(b.member, b.taskId, 1);
    const res = await t.as(b.member).patch(`/time-records/${own.id}`, { hours: 0.5, comment: 'less' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.record).toMatchObject({ id: own.id, hours: 0.5, comment: 'less', date: '2026-03-02' });
    expectTaskForm(body.task);
    expect(body.task.factTime).toBe(0.5);
    expectHistory(body.history, b.taskId, 14);

    const editor = await spaceMember(t, b.owner, Number(b.space.id), 'editor');
    const byEditor = await t.as(editor).patch(`/time-records/${own.id}`, { date: '2026-03-05', comment: null });
    expect(byEditor.statusCode).toBe(200);
    expect(byEditor.json().record).toMatchObject({ date: '2026-03-05', comment: null, userId: b.member.id });
    expectProblem(await t.as(b.member).patch(`/time-records/${own.id}`, {}), 400);
  });

  commonCases(t, 'PATCH /time-records/{recordId}', {
    method: 'PATCH',
    async setup() {
      const b = await withTask();
      const record = await logged(b.owner, b.taskId, 1);
      // A member may change only their own records.
      return { url: `/time-records/${record.id}`, owner: b.owner, body: { hours: 2 }, badBody: { hours: 25 }, forbidden: b.member };
    },
  });
});

describe('DELETE /time-records/{recordId}', () => {
  it('deletes a record (200 TH, history 14) and factTime drops by its hours', async () => {
    const b = await withTask();
    await logged(b.member, b.taskId, 1);
    const gone = await logged(b.member, b.taskId, 2);
    const res = await t.as(b.member).delete(`/time-records/${gone.id}`);
    expect(res.statusCode).toBe(200);
    const { task, history } = res.json();
    expectTaskForm(task);
    expect(task.factTime).toBe(1);
    expectHistory(history, b.taskId, 14);
    expect(await t.sql(sql`select id from time_records where id = ${gone.id}`)).toEqual([]);
    expectProblem(await t.as(b.member).delete(`/time-records/${gone.id}`), 404);
  });

  commonCases(t, 'DELETE /time-records/{recordId}', {
    method: 'DELETE',
    async setup() {
      const b = await withTask();
      const record = await logged(b.owner, b.taskId, 1);
      return { url: `/time-records/${record.id}`, owner: b.owner, forbidden: b.member };
    },
  });
});
