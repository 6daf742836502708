import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { STAGE_KEYS, boardWithRoles, columnTasks, projectColumns, seedTask } from './stages.fixtures.js';

const t = useTestApp();

describe('create a column (spec 14)', () => {
  it('answers 201 with the spec form and places it at the given order', async () => {
    const b = await boardWithRoles(t, 2);
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: ' Review ', order: 1, tasks: [] });
    expect(res.statusCode).toBe(201);
    const stage = res.json();
    expect(Object.keys(stage).sort()).toEqual(STAGE_KEYS);
    expect(stage).toEqual({ id: expect.any(Number), order: '1', name: 'Review', projectId: b.project.id, tasksLimit: 0, color: '' });
    expect(await projectColumns(t, b.project.id)).toEqual([b.stages[0]!.id, stage.id, b.stages[1]!.id]);
  });

  it('moves the given tasks of the project into the new column, with a history row each', async () => {
    const b = await boardWithRoles(t, 2);
    const [c1, c2] = [b.stages[0]!.id, b.stages[1]!.id];
    const a = await seedTask(t, b.owner, c1, { name: 'A' });
    const x = await seedTask(t, b.owner, c1, { name: 'X' });
    const c = await seedTask(t, b.owner, c2, { name: 'C' });
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: 'New', order: '5', tasks: [c, a] });
    expect(res.statusCode).toBe(201);
    const stage = res.json();
    expect(stage.order).toBe('2');
    expect(await columnTasks(t, stage.id)).toEqual([c, a]);
    expect(await columnTasks(t, c1)).toEqual([x]);
    expect(await columnTasks(t, c2)).toEqual([]);
    const history = await t.sql<{ taskId: number; type: number; state: string; projectName: string; taskName: string; userId: number }>(
      sql`select task_id as "taskId", type, state, project_name as "projectName", task_name as "taskName", user_id as "userId"
          from task_history where task_id in (${a}, ${c}, ${x}) and type = 3 order by id`,
    );
    expect(history).toEqual([
      { taskId: c, type: 3, state: 'moved to column "New"', projectName: 'Project', taskName: 'C', userId: b.owner.id },
      { taskId: a, type: 3, state: 'moved to column "New"', projectName: 'Project', taskName: 'A', userId: b.owner.id },
    ]);
    const [moved] = await t.sql<{ dateMove: Date | null }>(sql`select date_move as "dateMove" from tasks where id = ${a}`);
    expect(moved!.dateMove).not.toBeNull();
  });

  it('refuses tasks that are not on this board (400, nothing created)', async () => {
    const b = await boardWithRoles(t, 1);
    const other = await b.f.project(b.owner, b.space.id, 'Other');
    const otherColumn = await b.f.stage(b.owner, other.id);
    const foreign = await seedTask(t, b.owner, otherColumn.id);
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: 'New', order: 0, tasks: [foreign] });
    expectProblem(res, 400, 'REFERENCE_NOT_FOUND');
    expect(await projectColumns(t, b.project.id)).toEqual([b.stages[0]!.id]);
    expect(await columnTasks(t, otherColumn.id)).toEqual([foreign]);
  });

  it('keeps positions dense and unique under concurrent creates', async () => {
    const b = await boardWithRoles(t, 1);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: `C${i}`, order: 99, tasks: [] })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.json().order))).toEqual(new Set(['1', '2', '3', '4', '5', '6']));
    expect(await projectColumns(t, b.project.id)).toHaveLength(7);
  });

  it('answers 404 for a project in the trash', async () => {
    const b = await boardWithRoles(t, 1);
    expect((await t.as(b.owner).delete(`/projects/${b.project.id}`)).statusCode).toBe(204);
    expectProblem(await t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: 'New', order: 0, tasks: [] }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'POST /projects/{id}/stages', {
    method: 'POST',
    async setup() {
      const b = await boardWithRoles(t, 1);
      return { url: `/projects/${b.project.id}/stages`, owner: b.owner, body: { name: 'New', order: 0, tasks: [] }, badBody: { name: '', order: 0, tasks: [] }, forbidden: b.member };
    },
  });
});

describe('rename a column', () => {
  it('renames and answers the Stage form', async () => {
    const b = await boardWithRoles(t, 2);
    const res = await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${b.stages[1]!.id}/name`, { name: 'Done' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: b.stages[1]!.id, order: '1', name: 'Done', projectId: b.project.id, tasksLimit: 0, color: '' });
  });

  it('answers 404 for a column of another project', async () => {
    const b = await boardWithRoles(t, 1);
    const other = await b.f.project(b.owner, b.space.id, 'Other');
    const otherColumn = await b.f.stage(b.owner, other.id);
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${otherColumn.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
    // 404 before 403: a reader learns nothing about columns that are not there.
    expectProblem(await t.as(b.reader).patch(`/projects/${b.project.id}/stages/${otherColumn.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'PATCH /projects/{id}/stages/{id}/name', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 1);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}/name`, owner: b.owner, body: { name: 'X' }, badBody: { name: 7 }, forbidden: b.reader };
    },
  });
});

describe('set the task limit of a column', () => {
  it('sets and lifts the limit', async () => {
    const b = await boardWithRoles(t, 1);
    const url = `/projects/${b.project.id}/stages/${b.stages[0]!.id}/tasks-limit`;
    const set = await t.as(b.owner).patch(url, { tasksLimit: 3 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ id: b.stages[0]!.id, tasksLimit: 3, order: '0' });
    expect((await t.as(b.owner).patch(url, { tasksLimit: 0 })).json().tasksLimit).toBe(0);
  });

  commonCases(t, 'PATCH /projects/{id}/stages/{id}/tasks-limit', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 1);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}/tasks-limit`, owner: b.owner, body: { tasksLimit: 2 }, badBody: { tasksLimit: -1 }, forbidden: b.member };
    },
  });
});

describe('set the colour of a column (spec 15)', () => {
  it('answers the spec form: order an integer, hasAutomatization', async () => {
    const b = await boardWithRoles(t, 2);
    const url = `/projects/${b.project.id}/stages/${b.stages[1]!.id}/color`;
    const res = await t.as(b.owner).patch(url, { color: '#A1B2C3' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: b.stages[1]!.id, order: 1, name: 'Column 2', projectId: b.project.id, tasksLimit: 0, color: '#A1B2C3', hasAutomatization: false });
    const reset = await t.as(b.owner).patch(url, { color: '' });
    expect(reset.json().color).toBe('');
  });

  commonCases(t, 'PATCH /projects/{id}/stages/{id}/color', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 1);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}/color`, owner: b.owner, body: { color: '#000000' }, badBody: { color: 'red' }, forbidden: b.reader };
    },
  });
});

describe('move a column within its project', () => {
  it('moves it and renumbers the others densely', async () => {
    const b = await boardWithRoles(t, 3);
    const [a, c2, c] = b.stages.map((s) => s.id as number);
    const res = await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${c}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c, order: '0' });
    expect(await projectColumns(t, b.project.id)).toEqual([c, a, c2]);
    const clamped = await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${c}/order`, { order: '99' });
    expect(clamped.json().order).toBe('2');
    expect(await projectColumns(t, b.project.id)).toEqual([a, c2, c]);
  });

  commonCases(t, 'PATCH /projects/{id}/stages/{id}/order', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 2);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}/order`, owner: b.owner, body: { order: 1 }, badBody: { order: -1 }, forbidden: b.member };
    },
  });
});

describe('change the order of all columns', () => {
  it('applies the given order and answers the columns', async () => {
    const b = await boardWithRoles(t, 3);
    const [a, c2, c] = b.stages.map((s) => s.id as number);
    const res = await t.as(b.owner).patch(`/projects/${b.project.id}/stages/order`, { ids: [c, a, c2] });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Array<Record<string, unknown>>;
    expect(body.map((s) => [s.id, s.order])).toEqual([[c, '0'], [a, '1'], [c2, '2']]);
    expect(Object.keys(body[0]!).sort()).toEqual(STAGE_KEYS);
  });

  it('refuses a list that is not exactly the project’s columns (400, nothing changed)', async () => {
    const b = await boardWithRoles(t, 3);
    const ids = b.stages.map((s) => s.id as number);
    for (const bad of [[ids[0], ids[1]], [ids[0], ids[1], 999999999]]) {
      expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/stages/order`, { ids: bad }), 400, 'BAD_REQUEST');
    }
    expect(await projectColumns(t, b.project.id)).toEqual(ids);
  });

  commonCases(t, 'PATCH /projects/{id}/stages/order', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 2);
      const ids = b.stages.map((s) => s.id);
      return { url: `/projects/${b.project.id}/stages/order`, owner: b.owner, body: { ids: ids.reverse() }, badBody: { ids: [ids[0], ids[0]] }, forbidden: b.member };
    },
  });
});
