import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { boardWithRoles, expectHistory, expectTaskForm, historyOf } from '../tasks/tasks.fixtures.js';

const t = useTestApp();

const TIMER_KEYS = ['id', 'projectId', 'seconds', 'startedAt', 'stoppedAt', 'taskId', 'userId'];

async function withTasks() {
  const b = await boardWithRoles(t);
  const first = Number((await b.f.task(b.owner, b.stageIds[0]!, { name: 'First' })).id);
  const second = Number((await b.f.task(b.owner, b.stageIds[0]!, { name: 'Second' })).id);
  return { ...b, first, second };
}

async function started(user: TestUser, taskId: number): Promise<{ id: number }> {
  const res = await t.as(user).post('/timers', { taskId });
  expect(res.statusCode).toBe(201);
  return res.json();
}

/** Moves a timer's start back, as if it had been running that long. */
const backdate = (timerId: number, seconds: number) => t.sql(sql`update timers set started_at = now() - make_interval(secs => ${seconds}) where id = ${timerId}`);

describe('POST /timers', () => {
  it('starts a timer (201 Timer); starting another stops the first and writes its record', async () => {
    const b = await withTasks();
    const res = await t.as(b.member).post('/timers', { taskId: b.first });
    expect(res.statusCode).toBe(201);
    const timer = res.json();
    expect(Object.keys(timer).sort()).toEqual(TIMER_KEYS);
    expect(timer).toMatchObject({ userId: b.member.id, taskId: b.first, projectId: b.project.id, stoppedAt: null, seconds: 0 });

    // The same task again: the running timer as it is.
    expect((await started(b.member, b.first)).id).toBe(timer.id);

    await backdate(timer.id, 30 * 60);
    const next = await started(b.member, b.second);
    expect(next.id).not.toBe(timer.id);
    const rows = await t.sql<{ id: number; stopped: boolean; seconds: number }>(
      sql`select id, stopped_at is not null as stopped, seconds from timers where user_id = ${b.member.id} order by id`,
    );
    expect(rows.map((r) => [Number(r.id), r.stopped])).toEqual([[timer.id, true], [next.id, false]]);
    expect(Number(rows[0]!.seconds)).toBeGreaterThanOrEqual(1800);
    const records = await t.sql<{ hours: number; source: string }>(sql`select hours, source from time_records where task_id = ${b.first}`);
    expect(records).toEqual([{ hours: 0.5, source: 'timer' }]);
    expect((await historyOf(t, b.first)).map((h) => h.type)).toEqual([0, 14]);
  });

  it('refuses a task in the archive with 409', async () => {
    const b = await withTasks();
    await t.sql(sql`update tasks set archived_at = now() where id = ${b.first}`);
    expectProblem(await t.as(b.member).post('/timers', { taskId: b.first }), 409, 'CONFLICT');
  });

  commonCases(t, 'POST /timers', {
    method: 'POST',
    foreignId: true,
    async setup() {
      const b = await withTasks();
      return { url: '/timers', owner: b.owner, body: { taskId: b.first }, badBody: { taskId: 'x' }, forbidden: b.reader };
    },
  });
});

describe('PATCH /timers/{timerId}/stop', () => {
  it('stops the caller’s timer: {timer, record (source timer, minutes), task with factTime, history 14}', async () => {
    const b = await withTasks();
    const timer = await started(b.member, b.first);
    await backdate(timer.id, 95 * 60 + 20);
    const res = await t.as(b.member).patch(`/timers/${timer.id}/stop`, { comment: 'pairing' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['history', 'record', 'task', 'timer']);
    expect(body.timer).toMatchObject({ id: timer.id, stoppedAt: expect.any(String) });
    expect(body.timer.seconds).toBeGreaterThanOrEqual(95 * 60 + 20);
    expect(body.record).toMatchObject({ taskId: b.first, userId: b.member.id, source: 'timer', comment: 'pairing', hours: 95 / 60 });
    expectTaskForm(body.task);
    expect(body.task.factTime).toBe(95 / 60);
    expectHistory(body.history, b.first, 14);
    expectProblem(await t.as(b.member).patch(`/timers/${timer.id}/stop`), 409, 'CONFLICT');
  });

  it('logs at least one minute and at most 24 hours', async () => {
    const b = await withTasks();
    const quick = await started(b.member, b.first);
    const res = await t.as(b.member).patch(`/timers/${quick.id}/stop`);
    expect(res.json().record.hours).toBe(1 / 60);
    const long = await started(b.member, b.first);
    await backdate(long.id, 30 * 3600);
    expect((await t.as(b.member).patch(`/timers/${long.id}/stop`, {})).json().record.hours).toBe(24);
  });

  commonCases(t, 'PATCH /timers/{timerId}/stop', {
    method: 'PATCH',
    async setup() {
      const b = await withTasks();
      const timer = await started(b.owner, b.first);
      // Only the user who started a timer may stop it, whatever their role.
      return { url: `/timers/${timer.id}/stop`, owner: b.owner, body: { comment: 'done' }, badBody: { comment: 5 }, forbidden: b.member };
    },
  });
});

describe('GET /timers', () => {
  it('shows members their own timers and organization admins anyone’s', async () => {
    const b = await withTasks();
    const mine = await started(b.member, b.first);
    const owners = await started(b.owner, b.second);
    await t.as(b.owner).patch(`/timers/${owners.id}/stop`);
    const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((x) => x.id);

    const own = await t.as(b.member).get('/timers');
    expect(own.statusCode).toBe(200);
    expect(ids(own)).toEqual([mine.id]);
    expect(own.headers['x-total-count']).toBe('1');
    expectProblem(await t.as(b.member).get(`/timers?userId=${b.owner.id}`), 403, 'FORBIDDEN');

    expect(ids(await t.as(b.owner).get('/timers')).sort()).toEqual([mine.id, owners.id].sort());
    expect(ids(await t.as(b.owner).get('/timers?running=true'))).toEqual([mine.id]);
    expect(ids(await t.as(b.owner).get(`/timers?userId=${b.owner.id}&running=false`))).toEqual([owners.id]);
    expectProblem(await t.as(b.owner).get('/timers?running=maybe'), 400);
  });

  commonCases(t, 'GET /timers', {
    method: 'GET',
    async setup() {
      const b = await withTasks();
      await started(b.owner, b.first);
      return { url: `/timers?userId=${b.owner.id}`, owner: b.owner, forbidden: b.member };
    },
    foreignId: false,
  });
});

describe('GET /projects/{projectId}/timers', () => {
  it('lists timers on the project’s tasks to its readers', async () => {
    const b = await withTasks();
    const a = await started(b.member, b.first);
    const c = await started(b.owner, b.second);
    const res = await t.as(b.reader).get(`/projects/${b.project.id}/timers?running=true`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((x: { id: number }) => x.id).sort()).toEqual([a.id, c.id].sort());
    expect(res.headers['x-total-count']).toBe('2');
    const outsider = await t.member(b.owner, 'member');
    expectProblem(await t.as(outsider).get(`/projects/${b.project.id}/timers`), 404);
  });

  commonCases(t, 'GET /projects/{projectId}/timers', {
    method: 'GET',
    async setup() {
      const b = await withTasks();
      return { url: `/projects/${b.project.id}/timers`, owner: b.owner };
    },
  });
});
