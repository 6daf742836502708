import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, columnTasks, expectArchiveForm, expectHistory, expectTaskForm, historyOf, ISO_MS, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();

async function archived(kit: TestKit, b: Awaited<ReturnType<typeof boardWithRoles>>, taskId: number, stageId: number) {
  const res = await kit.as(b.owner).patch(`/tasks/${taskId}/archive`, { stageId });
  if (res.statusCode !== 200) throw new Error(`archive failed: ${res.body}`);
}

describe('POST /tasks/move', () => {
  it('reorders within a column: positions stay dense, dateMove untouched', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d, e] = await tasksIn(t, b.owner, b.stageIds[0]!, 4);
    const res = await t.as(b.member).post('/tasks/move', { taskIds: [e], stageId: b.stageIds[0], order: 1 });
    expect(res.statusCode).toBe(200);
    const { tasks, history } = res.json();
    expect(tasks).toHaveLength(1);
    expectTaskForm(tasks[0]);
    expect(tasks[0]).toMatchObject({ id: e, dateMove: null, stages: [{ stageId: b.stageIds[0], order: '1', pinned: true, projectId: b.project.id }] });
    expectHistory(history[0], e!, 3);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([a, e, c, d]);
  });

  it('moves several tasks to another column in the given order, closing ranks behind them', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d] = await tasksIn(t, b.owner, b.stageIds[0]!, 3);
    const [x] = await tasksIn(t, b.owner, b.stageIds[1]!, 1);
    const res = await t.as(b.member).post('/tasks/move', { taskIds: [d, a], stageId: b.stageIds[1], order: '0', fromStageId: b.stageIds[0] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tasks.map((k: { id: number }) => k.id)).toEqual([d, a]);
    expect(body.tasks[0].dateMove).toMatch(ISO_MS);
    expect(body.history.map((h: { taskId: number; type: number }) => [h.taskId, h.type])).toEqual([[d, 3], [a, 3]]);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([c]);
    expect(await columnTasks(t, b.stageIds[1]!)).toEqual([d, a, x]);
    expect(await historyOf(t, d!)).toEqual([{ type: 0, userId: b.owner.id }, { type: 3, userId: b.member.id }]);
  });

  it('relocates a task moved into another project: the new column becomes its home', async () => {
    const b = await boardWithRoles(t);
    const other = await b.f.project(b.owner, b.space.id, 'Other');
    const [otherStage] = [await b.f.stage(b.owner, other.id, 'Inbox')];
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const res = await t.as(b.owner).post('/tasks/move', { taskIds: [a], stageId: otherStage!.id });
    expect(res.statusCode).toBe(200);
    expect(res.json().tasks[0].stages).toEqual([{ stageId: otherStage!.id, order: '0', pinned: true, projectId: other.id }]);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([c]);
    expect(await t.sql(sql`select project_id as "projectId" from tasks where id = ${a}`)).toEqual([{ projectId: other.id }]);
    expect((await t.as(b.owner).get(`/projects/${other.id}/tasks`)).json().map((k: { id: number }) => k.id)).toEqual([a]);
  });

  it('enforces the target column limit (400 STAGE_TASKS_LIMIT), yet reorders inside a full column', async () => {
    const b = await boardWithRoles(t);
    const [a] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const [x, y] = await tasksIn(t, b.owner, b.stageIds[1]!, 2);
    await t.sql(sql`update stages set tasks_limit = 2 where id = ${b.stageIds[1]}`);
    expectProblem(await t.as(b.owner).post('/tasks/move', { taskIds: [a], stageId: b.stageIds[1] }), 400, 'STAGE_TASKS_LIMIT');
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([a]);
    expect((await t.as(b.owner).post('/tasks/move', { taskIds: [y], stageId: b.stageIds[1], order: 0 })).statusCode).toBe(200);
    expect(await columnTasks(t, b.stageIds[1]!)).toEqual([y, x]);
  });

  it('refuses archived tasks (409) and a fromStageId the task is not in (400)', async () => {
    const b = await boardWithRoles(t);
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    await archived(t, b, a!, b.stageIds[0]!);
    expectProblem(await t.as(b.owner).post('/tasks/move', { taskIds: [a], stageId: b.stageIds[1] }), 409, 'CONFLICT');
    expectProblem(await t.as(b.owner).post('/tasks/move', { taskIds: [c], stageId: b.stageIds[1], fromStageId: b.stageIds[1] }), 400, 'BAD_REQUEST');
  });

  it('answers 404 for another organization’s task moved into a column of ones own, and 404 for the column first', async () => {
    const b = await boardWithRoles(t);
    const [mine] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const theirs = await boardWithRoles(t);
    const [foreign] = await tasksIn(t, theirs.owner, theirs.stageIds[0]!, 1);
    const before = await t.sql(sql`select task_id, stage_id, "order" from task_stages where task_id in (${mine}, ${foreign}) order by task_id`);
    const task = expectProblem(await t.as(b.owner).post('/tasks/move', { taskIds: [mine, foreign], stageId: b.stageIds[1] }), 404, 'NOT_FOUND');
    expect(task.detail).toContain(`task ${foreign}`);
    const column = expectProblem(await t.as(b.owner).post('/tasks/move', { taskIds: [foreign], stageId: theirs.stageIds[1] }), 404, 'NOT_FOUND');
    expect(column.detail).toContain('stage');
    expect(await t.sql(sql`select task_id, stage_id, "order" from task_stages where task_id in (${mine}, ${foreign}) order by task_id`)).toEqual(before);
  });

  commonCases(t, 'POST /tasks/move', {
    method: 'POST',
    foreignId: true,
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: '/tasks/move', owner: b.owner, body: { taskIds: [task.id], stageId: b.stageIds[1] }, badBody: { taskIds: [], stageId: b.stageIds[1] }, forbidden: b.reader };
    },
  });
});

describe('PATCH /tasks/{taskId}/archive', () => {
  it('archives a task: archive form, off the board, in the archive list', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d] = await tasksIn(t, b.owner, b.stageIds[0]!, 3);
    await t.sql(sql`insert into task_assignees (organization_id, task_id, user_id) values (${b.owner.organizationId}, ${c}, ${b.owner.id})`);
    const res = await t.as(b.owner).patch(`/tasks/${c}/archive`, { stageId: b.stageIds[0] });
    expect(res.statusCode).toBe(200);
    const { task, history } = res.json();
    expectArchiveForm(task);
    expect(task).toMatchObject({ id: c, stages: [String(b.stageIds[0])], responsibleUserId: [String(b.owner.id)], tags: [], members: [] });
    expectHistory(history, c!, 16);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([a, d]);
    const board = (await t.as(b.owner).get(`/projects/${b.project.id}/tasks`)).json().map((k: { id: number }) => k.id);
    expect(board).toEqual([a, d]);
    const archive = (await t.as(b.reader).get(`/projects/${b.project.id}/tasks/archived`)).json();
    expect(archive.map((k: { id: number }) => k.id)).toEqual([c]);
    expect(archive[0].stages[0].order).toBeNull();
  });

  it('refuses a column the task is not in (400) and a second archive (409)', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    expectProblem(await t.as(b.owner).patch(`/tasks/${task.id}/archive`, { stageId: b.stageIds[1] }), 400, 'BAD_REQUEST');
    await archived(t, b, task.id, b.stageIds[0]!);
    expectProblem(await t.as(b.owner).patch(`/tasks/${task.id}/archive`, { stageId: b.stageIds[0] }), 409, 'CONFLICT');
  });

  it('lets a member archive its own task', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.member, b.stageIds[0]!);
    expect((await t.as(b.member).patch(`/tasks/${task.id}/archive`, { stageId: b.stageIds[0] })).statusCode).toBe(200);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/archive', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      // A member may archive only its own tasks.
      return { url: `/tasks/${task.id}/archive`, owner: b.owner, body: { stageId: b.stageIds[0] }, badBody: { stageId: 'first' }, forbidden: b.member };
    },
  });
});

describe('PATCH /tasks/{taskId}/restore', () => {
  it('puts the task back at the end of its column (no body needed)', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d] = await tasksIn(t, b.owner, b.stageIds[0]!, 3);
    await archived(t, b, a!, b.stageIds[0]!);
    const res = await t.as(b.owner).patch(`/tasks/${a}/restore`);
    expect(res.statusCode).toBe(200);
    expectTaskForm(res.json().task);
    expect(res.json().task.stages).toEqual([{ stageId: b.stageIds[0], order: '2', pinned: true, projectId: b.project.id }]);
    expectHistory(res.json().history, a!, 17);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([c, d, a]);
    expect((await t.as(b.owner).get(`/projects/${b.project.id}/tasks/archived`)).json()).toEqual([]);
  });

  it('restores into a given column, within the column limit', async () => {
    const b = await boardWithRoles(t);
    const [a] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const [x] = await tasksIn(t, b.owner, b.stageIds[1]!, 1);
    await archived(t, b, a!, b.stageIds[0]!);
    await t.sql(sql`update stages set tasks_limit = 1 where id = ${b.stageIds[1]}`);
    expectProblem(await t.as(b.owner).patch(`/tasks/${a}/restore`, { stageId: b.stageIds[1] }), 400, 'STAGE_TASKS_LIMIT');
    await t.sql(sql`update stages set tasks_limit = 2 where id = ${b.stageIds[1]}`);
    const res = await t.as(b.owner).patch(`/tasks/${a}/restore`, { stageId: b.stageIds[1] });
    expect(res.statusCode).toBe(200);
    expect(res.json().task.dateMove).toMatch(ISO_MS);
    expect(await columnTasks(t, b.stageIds[1]!)).toEqual([x, a]);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([]);
  });

  it('refuses a task that is not archived (409)', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    expectProblem(await t.as(b.owner).patch(`/tasks/${task.id}/restore`, {}), 409, 'CONFLICT');
  });

  commonCases(t, 'PATCH /tasks/{taskId}/restore', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      await archived(kit, b, task.id, b.stageIds[0]!);
      return { url: `/tasks/${task.id}/restore`, owner: b.owner, body: {}, badBody: { stageId: 0 }, forbidden: b.member };
    },
  });
});
