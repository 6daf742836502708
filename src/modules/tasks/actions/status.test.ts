import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, columnTasks, expectArchiveForm, expectHistory, expectTaskForm, historyOf, spaceMember, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();
const idArray = (ids: number[]) => `{${ids.join(',')}}`;

describe('PATCH /tasks/{taskId}/needs-attention', () => {
  it('sets status 3 with the reason, replaces it, and null takes the task back to 0 (history 21 each)', async () => {
    const b = await boardWithRoles(t);
    const [id] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);

    const set = await t.as(b.member).patch(`/tasks/${id}/needs-attention`, { blockReason: ' Waiting for the API key ' });
    expect(set.statusCode).toBe(200);
    expectTaskForm(set.json().task);
    expectHistory(set.json().history, id!, 21);
    expect(set.json().task).toMatchObject({ status: 3, blockReason: 'Waiting for the API key' });
    const changedAt = set.json().task.dateStatusChanged;
    expect(changedAt).not.toBeNull();

    const again = await t.as(b.member).patch(`/tasks/${id}/needs-attention`, { blockReason: 'Still waiting' });
    expect(again.json().task).toMatchObject({ status: 3, blockReason: 'Still waiting', dateStatusChanged: changedAt });

    const cleared = await t.as(b.member).patch(`/tasks/${id}/needs-attention`, { blockReason: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().task).toMatchObject({ status: 0, blockReason: null });
    expect((await historyOf(t, id!)).map((h) => h.type)).toEqual([0, 21, 21, 21]);
  });

  it('null on a task that does not need attention leaves its status (a done task stays done)', async () => {
    const b = await boardWithRoles(t);
    const [id] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    await t.sql(sql`update tasks set status = 1 where id = ${id}`);
    const res = await t.as(b.owner).patch(`/tasks/${id}/needs-attention`, { blockReason: null });
    expect([res.statusCode, res.json().task.status, res.json().history.type]).toEqual([200, 1, 21]);
  });

  it('answers 409 for an archived task', async () => {
    const b = await boardWithRoles(t);
    const [id] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    await t.as(b.owner).patch(`/tasks/${id}/archive`, { stageId: b.stageIds[0] });
    expectProblem(await t.as(b.owner).patch(`/tasks/${id}/needs-attention`, { blockReason: 'x' }), 409, 'CONFLICT');
  });

  commonCases(t, 'PATCH /tasks/{taskId}/needs-attention', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const [id] = await tasksIn(kit, b.owner, b.stageIds[0]!, 1);
      return { url: `/tasks/${id}/needs-attention`, owner: b.owner, body: { blockReason: 'why' }, badBody: { blockReason: '   ' }, forbidden: b.reader };
    },
  });
});

describe('PATCH /projects/{projectId}/stages/{stageId}/finish-tasks', () => {
  it('marks every unfinished task of the column done, with history 4 each, leaving others alone', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d, archived] = await tasksIn(t, b.owner, b.stageIds[0]!, 4);
    const [elsewhere] = await tasksIn(t, b.owner, b.stageIds[1]!, 1);
    await t.sql(sql`update tasks set status = 1 where id = ${c}`);
    await t.sql(sql`update tasks set status = 3, block_reason = 'x' where id = ${d}`);
    await t.as(b.owner).patch(`/tasks/${archived}/archive`, { stageId: b.stageIds[0] });
    const order = await columnTasks(t, b.stageIds[0]!);

    const res = await t.as(b.member).patch(`/projects/${b.project.id}/stages/${b.stageIds[0]}/finish-tasks`);
    expect(res.statusCode).toBe(200);
    const { tasks, history } = res.json();
    const changed = order.filter((id) => id !== c);
    expect(tasks.map((k: { id: number }) => k.id)).toEqual(changed);
    tasks.forEach((task: Record<string, unknown>, i: number) => {
      expectTaskForm(task);
      expect(task).toMatchObject({ status: 1, blockReason: null });
      expectHistory(history[i], task.id as number, 4);
    });
    const statuses = await t.sql<{ id: number; status: number }>(sql`select id, status from tasks where id = any(${idArray([a!, c!, d!, archived!, elsewhere!])}::bigint[]) order by id`);
    expect(statuses.map((r) => [Number(r.id), r.status])).toEqual([[a, 1], [c, 1], [d, 1], [archived, 0], [elsewhere, 0]]);
    expect((await historyOf(t, c!)).map((h) => h.type)).toEqual([0]);

    const again = await t.as(b.member).patch(`/projects/${b.project.id}/stages/${b.stageIds[0]}/finish-tasks`);
    expect(again.json()).toEqual({ tasks: [], history: [] });
  });

  it('answers 404 for a column of another project', async () => {
    const b = await boardWithRoles(t);
    const other = await b.f.project(b.owner, b.space.id, 'Other');
    expectProblem(await t.as(b.owner).patch(`/projects/${other.id}/stages/${b.stageIds[0]}/finish-tasks`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'PATCH /projects/{projectId}/stages/{stageId}/finish-tasks', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      await tasksIn(kit, b.owner, b.stageIds[0]!, 2);
      return { url: `/projects/${b.project.id}/stages/${b.stageIds[0]}/finish-tasks`, owner: b.owner, forbidden: b.reader };
    },
  });
});

describe('PATCH /tasks/archive', () => {
  it('archives several tasks at once: archive forms, history 16 each, columns closed up', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d] = await tasksIn(t, b.owner, b.stageIds[0]!, 3);
    const [e] = await tasksIn(t, b.member, b.stageIds[1]!, 1);
    const res = await t.as(b.owner).patch('/tasks/archive', { items: [{ taskId: e, stageId: b.stageIds[1] }, { taskId: a, stageId: b.stageIds[0] }, { taskId: d, stageId: b.stageIds[0] }] });
    expect(res.statusCode).toBe(200);
    const { tasks, history } = res.json();
    expect(tasks.map((k: { id: number }) => k.id)).toEqual([e, a, d]);
    tasks.forEach((task: Record<string, unknown>, i: number) => {
      expectArchiveForm(task);
      expectHistory(history[i], task.id as number, 16);
    });
    expect(tasks[1].stages).toEqual([String(b.stageIds[0])]);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([c]);
    expect(await columnTasks(t, b.stageIds[1]!)).toEqual([]);
    const archived = await t.sql<{ n: number }>(sql`select count(*)::int as n from tasks where archived_at is not null and id = any(${idArray([a!, d!, e!])}::bigint[])`);
    expect(archived).toEqual([{ n: 3 }]);
  });

  it('is all or nothing: a task of someone else (member), an archived one, a wrong column or a foreign one archive none', async () => {
    const b = await boardWithRoles(t);
    const [own] = await tasksIn(t, b.member, b.stageIds[0]!, 1);
    const [others, done] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    await t.as(b.owner).patch(`/tasks/${done}/archive`, { stageId: b.stageIds[0] });
    const foreign = await boardWithRoles(t);
    const [theirs] = await tasksIn(t, foreign.owner, foreign.stageIds[0]!, 1);
    const before = await fingerprint(t, [b.owner.organizationId]);
    const item = (taskId: number, stageId = b.stageIds[0]) => ({ taskId, stageId });

    expectProblem(await t.as(b.member).patch('/tasks/archive', { items: [item(own!), item(others!)] }), 403, 'FORBIDDEN');
    expectProblem(await t.as(b.member).patch('/tasks/archive', { items: [item(own!), item(theirs!)] }), 404, 'NOT_FOUND');
    expectProblem(await t.as(b.owner).patch('/tasks/archive', { items: [item(own!), item(done!)] }), 409, 'CONFLICT');
    expectProblem(await t.as(b.owner).patch('/tasks/archive', { items: [item(own!), item(others!, b.stageIds[1])] }), 400, 'BAD_REQUEST');
    expectProblem(await t.as(b.owner).patch('/tasks/archive', { items: [item(own!), item(own!)] }), 400, 'VALIDATION_FAILED');
    expect(await fingerprint(t, [b.owner.organizationId])).toBe(before);

    const editor = await spaceMember(t, b.owner, b.space.id, 'editor');
    expect((await t.as(editor).patch('/tasks/archive', { items: [item(own!), item(others!)] })).statusCode).toBe(200);
  });

  commonCases(t, 'PATCH /tasks/archive', {
    method: 'PATCH',
    foreignId: true,
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const ids = await tasksIn(kit, b.owner, b.stageIds[0]!, 2);
      return {
        url: '/tasks/archive',
        owner: b.owner,
        body: { items: ids.map((taskId) => ({ taskId, stageId: b.stageIds[0] })) },
        badBody: { items: [] },
        forbidden: b.member,
      };
    },
  });
});

describe('POST /tasks/by-ids', () => {
  it('answers the readable tasks in the order given, each once, leaving out the rest', async () => {
    const b = await boardWithRoles(t);
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const closed = await b.f.space(b.owner, 'Closed');
    const closedProject = await b.f.project(b.owner, closed.id);
    const closedStage = await b.f.stage(b.owner, closedProject.id);
    const [hidden] = await tasksIn(t, b.owner, closedStage.id, 1);
    const foreign = await boardWithRoles(t);
    const [theirs] = await tasksIn(t, foreign.owner, foreign.stageIds[0]!, 1);
    await t.as(b.owner).patch(`/tasks/${c}/archive`, { stageId: b.stageIds[0] });

    const res = await t.as(b.reader).post('/tasks/by-ids', { ids: [c, theirs, hidden, a, c, 999999999] });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((k: { id: number }) => k.id)).toEqual([c, a]);
    for (const task of res.json()) expectTaskForm(task);
    expect((await t.as(b.owner).post('/tasks/by-ids', { ids: [hidden, a] })).json().map((k: { id: number }) => k.id)).toEqual([hidden, a]);
    expectProblem(await t.as(b.owner).post('/tasks/by-ids', { ids: Array.from({ length: 501 }, (_, i) => i + 1) }), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'POST /tasks/by-ids', {
    method: 'POST',
    foreignId: false,
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const ids = await tasksIn(kit, b.owner, b.stageIds[0]!, 1);
      return { url: '/tasks/by-ids', owner: b.owner, body: { ids }, badBody: { ids: ['x'] } };
    },
  });
});
