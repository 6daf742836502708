import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, expectTaskForm, tasksIn } from '../tasks.fixtures.js';
import { today } from '../filters.js';

const t = useTestApp();
const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((k) => k.id);

/**
 * A board plus a space the reader is not in (with a task) and a task in another organization:
 * every list must leave both out.
 */
async function world(kit: TestKit) {
  const b = await boardWithRoles(kit);
  const closed = await b.f.space(b.owner, 'Closed');
  const closedProject = await b.f.project(b.owner, closed.id, 'Closed project');
  const closedStage = await b.f.stage(b.owner, closedProject.id);
  const [hidden] = await tasksIn(kit, b.owner, closedStage.id, 1);
  const foreign = await boardWithRoles(kit);
  const [theirs] = await tasksIn(kit, foreign.owner, foreign.stageIds[0]!, 1);
  const assign = (taskId: number, userId: number, table = 'task_assignees') =>
    kit.sql(sql`insert into ${sql.identifier(table)} (organization_id, task_id, user_id) values (${b.owner.organizationId}, ${taskId}, ${userId})`);
  return { ...b, hidden: hidden!, theirs: theirs!, foreign, assign };
}

describe('GET /tasks', () => {
  it('lists the readable tasks of the organization, newest first, with filters and paging', async () => {
    const w = await world(t);
    const [a, c, d] = await tasksIn(t, w.owner, w.stageIds[0]!, 3);
    const second = await w.f.project(w.owner, w.space.id, 'Second');
    const secondStage = await w.f.stage(w.owner, second.id);
    const [e] = await tasksIn(t, w.owner, secondStage.id, 1);
    await w.assign(c!, w.member.id);
    await t.sql(sql`update tasks set status = 3, date_end = '2026-05-10T10:00:00Z' where id = ${d}`);
    await t.as(w.owner).patch(`/tasks/${a}/archive`, { stageId: w.stageIds[0] });

    const res = await t.as(w.reader).get('/tasks');
    expect(res.statusCode).toBe(200);
    expect([res.headers['x-total-count'], ids(res)]).toEqual(['3', [e, d, c]]);
    for (const task of res.json()) expectTaskForm(task);
    expect(ids(await t.as(w.owner).get('/tasks'))).toEqual([e, d, c, w.hidden]);
    expect(ids(await t.as(w.reader).get(`/tasks?statuses=3`))).toEqual([d]);
    expect(ids(await t.as(w.reader).get(`/tasks?responsibleId=${w.member.id}`))).toEqual([c]);
    expect(ids(await t.as(w.reader).get(`/tasks?projectId=${second.id}`))).toEqual([e]);
    expect(ids(await t.as(w.reader).get(`/tasks?spaceId=${w.space.id}&dateFrom=2026-05-10&dateTo=2026-05-10`))).toEqual([d]);
    expect(ids(await t.as(w.reader).get(`/tasks?spaceId=${w.foreign.space.id}`))).toEqual([]);
    const page = await t.as(w.reader).get('/tasks?limit=2');
    expect([ids(page), page.headers.link]).toEqual([[e, d], '</tasks?limit=2&offset=2>; rel="next"']);
    expectProblem(await t.as(w.reader).get('/tasks?limit=10001'), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'GET /tasks', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: '/tasks', owner: b.owner };
    },
  });
});

describe('GET /users/{userId}/tasks', () => {
  it("lists a user's assigned tasks the caller can read", async () => {
    const w = await world(t);
    const [a, c] = await tasksIn(t, w.owner, w.stageIds[0]!, 2);
    for (const id of [a!, c!, w.hidden]) await w.assign(id, w.member.id);
    await t.sql(sql`update tasks set status = 1 where id = ${a}`);
    const res = await t.as(w.reader).get(`/users/${w.member.id}/tasks`);
    expect([res.statusCode, res.headers['x-total-count'], ids(res)]).toEqual([200, '2', [c, a]]);
    expect(ids(await t.as(w.reader).get(`/users/${w.member.id}/tasks?statuses=1`))).toEqual([a]);
    expect(ids(await t.as(w.owner).get(`/users/${w.member.id}/tasks`))).toEqual([c, a, w.hidden]);
    expectProblem(await t.as(w.reader).get(`/users/${w.foreign.owner.id}/tasks`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'GET /users/{userId}/tasks', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: `/users/${b.member.id}/tasks`, owner: b.owner };
    },
  });
});

describe('finished today', () => {
  it('GET /projects/{projectId}/tasks/finished-today and /users/{userId}/tasks/finished-today follow the time zone', async () => {
    const w = await world(t);
    const [a, c, d] = await tasksIn(t, w.owner, w.stageIds[0]!, 3);
    const tokyo = today('Asia/Tokyo');
    const utc = today('UTC');
    // a: done at the start of today in Tokyo; c: done an hour before that; d: done now, but rejected.
    await t.sql(sql`update tasks set status = 1, date_status_changed = ${tokyo.from.toISOString()} where id = ${a}`);
    await t.sql(sql`update tasks set status = 1, date_status_changed = ${new Date(tokyo.from.getTime() - 3_600_000).toISOString()} where id = ${c}`);
    await t.sql(sql`update tasks set status = 2, date_status_changed = now() where id = ${d}`);
    for (const id of [a!, c!]) await w.assign(id, w.member.id);

    const project = await t.as(w.reader).get(`/projects/${w.project.id}/tasks/finished-today?tz=Asia/Tokyo`);
    expect([project.statusCode, ids(project)]).toEqual([200, [a]]);
    for (const task of project.json()) expectTaskForm(task);
    const inUtc = ids(await t.as(w.reader).get(`/projects/${w.project.id}/tasks/finished-today`));
    const inUtcExpected = [a!, c!].filter((id) => {
      const at = id === a ? tokyo.from.getTime() : tokyo.from.getTime() - 3_600_000;
      return at >= utc.from.getTime() && at < utc.to.getTime();
    });
    expect([...inUtc].sort()).toEqual(inUtcExpected.sort());
    expect(ids(await t.as(w.reader).get(`/users/${w.member.id}/tasks/finished-today?tz=Asia/Tokyo`))).toEqual([a]);
    expectProblem(await t.as(w.reader).get(`/projects/${w.project.id}/tasks/finished-today?tz=Mars/Olympus`), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(w.reader).get(`/users/${w.member.id}/tasks/finished-today?tz=Nowhere/City`), 400, 'VALIDATION_FAILED');
  });

  it('computes day boundaries in the zone, across offsets', () => {
    const now = new Date('2026-03-10T20:00:00Z');
    expect(today('UTC', now)).toEqual({ date: '2026-03-10', from: new Date('2026-03-10T00:00:00Z'), to: new Date('2026-03-11T00:00:00Z') });
    expect(today('Asia/Tokyo', now)).toEqual({ date: '2026-03-11', from: new Date('2026-03-10T15:00:00Z'), to: new Date('2026-03-11T15:00:00Z') });
    // New York moves to summer time on 2026-03-08: that day is 23 hours long.
    expect(today('America/New_York', new Date('2026-03-08T12:00:00Z'))).toEqual({
      date: '2026-03-08',
      from: new Date('2026-03-08T05:00:00Z'),
      to: new Date('2026-03-09T04:00:00Z'),
    });
  });

  commonCases(t, 'GET /projects/{projectId}/tasks/finished-today', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: `/projects/${b.project.id}/tasks/finished-today`, owner: b.owner };
    },
  });
  commonCases(t, 'GET /users/{userId}/tasks/finished-today', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: `/users/${b.member.id}/tasks/finished-today`, owner: b.owner };
    },
  });
});

describe('GET /user/tasks/created and /user/tasks/participating', () => {
  it("list the caller's own and shared tasks", async () => {
    const w = await world(t);
    const [mine, done] = await tasksIn(t, w.member, w.stageIds[0]!, 2);
    const [assigned, member, inspecting, none] = await tasksIn(t, w.owner, w.stageIds[0]!, 4);
    await t.sql(sql`update tasks set status = 1 where id = ${done}`);
    await w.assign(assigned!, w.member.id);
    await w.assign(member!, w.member.id, 'task_members');
    await w.assign(inspecting!, w.member.id, 'task_inspectors');
    await w.assign(w.theirs, w.foreign.owner.id);
    expect(none).toBeDefined();

    const created = await t.as(w.member).get('/user/tasks/created');
    expect([created.statusCode, ids(created)]).toEqual([200, [done, mine]]);
    expect(ids(await t.as(w.member).get('/user/tasks/created?statuses=0'))).toEqual([mine]);
    const part = await t.as(w.member).get('/user/tasks/participating');
    expect([part.statusCode, part.headers['x-total-count'], ids(part)]).toEqual([200, '3', [inspecting, member, assigned]]);
    for (const task of part.json()) expectTaskForm(task);
  });

  for (const path of ['/user/tasks/created', '/user/tasks/participating']) {
    commonCases(t, `GET ${path}`, {
      method: 'GET',
      async setup(kit) {
        const b = await boardWithRoles(kit);
        return { url: path, owner: b.owner };
      },
    });
  }
});

describe('GET /user/tasks/counts', () => {
  it('counts the home page numbers in the time zone', async () => {
    const w = await world(t);
    const me = w.member;
    const [overdue, dueToday, blocked, finished, plain, created] = await tasksIn(t, w.owner, w.stageIds[0]!, 6);
    const [own] = await tasksIn(t, me, w.stageIds[0]!, 1);
    const day = today('Asia/Tokyo');
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString();
    for (const id of [overdue!, dueToday!, blocked!, finished!, plain!]) await w.assign(id, me.id);
    await w.assign(w.hidden, me.id); // a space the member is not in: never counted
    await w.assign(created!, me.id, 'task_inspectors');
    await t.sql(sql`update tasks set date_end = now() - interval '2 days' where id = ${overdue}`);
    await t.sql(sql`update tasks set date_end_without_time = ${day.date}::date where id = ${dueToday}`);
    await t.sql(sql`update tasks set status = 3, block_reason = 'x', date_end = ${future} where id = ${blocked}`);
    await t.sql(sql`update tasks set status = 1, date_status_changed = now() where id = ${finished}`);

    const res = await t.as(me).get('/user/tasks/counts?tz=Asia/Tokyo');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      assigned: 4, // overdue, dueToday, blocked, plain (finished is closed)
      overdue: 1,
      dueToday: 1,
      needsAttention: 1,
      inspecting: 1,
      created: 1,
      participating: 5,
      finishedToday: 1,
    });
    expect(own).toBeDefined();
    expectProblem(await t.as(me).get('/user/tasks/counts?tz=Not/AZone'), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'GET /user/tasks/counts', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: '/user/tasks/counts', owner: b.owner };
    },
  });
});

describe('GET /users/{userId}/task-history', () => {
  it("lists a user's history records on readable tasks, newest first; others' history is for admins", async () => {
    const w = await world(t);
    const [a] = await tasksIn(t, w.member, w.stageIds[0]!, 1);
    await t.as(w.member).patch(`/tasks/${a}/needs-attention`, { blockReason: 'why' });
    // The member's action on a task in a space the reader cannot see.
    await t.sql(sql`insert into task_history (organization_id, task_id, user_id, type, state, task_name) values (${w.owner.organizationId}, ${w.hidden}, ${w.member.id}, 1, 'renamed', 'x')`);
    await t.sql(sql`update task_history set update_date = '2026-01-01T10:00:00Z' where task_id = ${a} and type = 0`);

    const own = await t.as(w.member).get(`/users/${w.member.id}/task-history`);
    expect(own.statusCode).toBe(200);
    expect(own.json().map((h: { type: number; taskId: number }) => [h.type, h.taskId])).toEqual([[21, a], [0, a]]);
    expect(own.headers['x-total-count']).toBe('2');
    const admin = await t.as(w.owner).get(`/users/${w.member.id}/task-history`);
    expect(admin.json().map((h: { type: number }) => h.type)).toEqual([1, 21, 0]);
    expect((await t.as(w.owner).get(`/users/${w.member.id}/task-history?dateTo=2026-01-01`)).json().map((h: { type: number }) => h.type)).toEqual([0]);
    expectProblem(await t.as(w.owner).get(`/users/${w.foreign.owner.id}/task-history`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'GET /users/{userId}/task-history', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: `/users/${b.member.id}/task-history`, owner: b.owner, forbidden: b.reader };
    },
  });
});
