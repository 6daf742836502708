import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, expectHistory, expectTaskForm, historyOf } from '../tasks.fixtures.js';

const t = useTestApp();

/** A task with the named subtasks, added through the API as the board's owner. */
async function taskWithSubtasks(kit: TestKit, names: string[] = []) {
  const b = await boardWithRoles(kit);
  const task = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Parent' });
  const ids: number[] = [];
  for (const name of names) {
    const res = await kit.as(b.owner).post(`/tasks/${task.id}/subtasks`, { name });
    if (res.statusCode !== 201) throw new Error(`subtask create failed: ${res.body}`);
    const list = res.json().task.list as Array<{ id: number; name: string }>;
    ids.push(list.find((s) => s.name === name)!.id);
  }
  return { ...b, taskId: Number(task.id), subtaskIds: ids };
}

/** Subtask rows of a task in list order, failing unless positions are exactly 0..n-1. */
async function rowsOf(kit: TestKit, taskId: number) {
  const rows = await kit.sql<{ id: number; name: string; isChecked: boolean; order: number }>(
    sql`select id, name, is_checked as "isChecked", "order" from subtasks where task_id = ${taskId} order by "order", id`,
  );
  expect(rows.map((r) => Number(r.order))).toEqual(rows.map((_, i) => i));
  return rows.map((r) => ({ id: Number(r.id), name: r.name, isChecked: r.isChecked }));
}

describe('GET /tasks/{id}/subtasks', () => {
  it('lists the subtasks in order for a space reader, with paging headers', async () => {
    const w = await taskWithSubtasks(t, ['one', 'two', 'three']);
    const res = await t.as(w.reader).get(`/tasks/${w.taskId}/subtasks?limit=2`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: w.subtaskIds[0], name: 'one', isChecked: false, taskId: w.taskId, childTaskId: null, order: '0' },
      { id: w.subtaskIds[1], name: 'two', isChecked: false, taskId: w.taskId, childTaskId: null, order: '1' },
    ]);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toBe(`</tasks/${w.taskId}/subtasks?limit=2&offset=2>; rel="next"`);
    const rest = await t.as(w.reader).get(`/tasks/${w.taskId}/subtasks?limit=2&offset=2`);
    expect(rest.json().map((s: { name: string }) => s.name)).toEqual(['three']);
    expect(rest.headers.link).toBeUndefined();
  });

  commonCases(t, 'GET /tasks/{id}/subtasks', {
    method: 'GET',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, ['one']);
      const outsider = await kit.member(w.owner, 'member');
      // Not in the space: the task does not exist for it (404), so there is no 403 case for reading.
      expectProblem(await kit.as(outsider).get(`/tasks/${w.taskId}/subtasks`), 404, 'NOT_FOUND');
      return { url: `/tasks/${w.taskId}/subtasks`, owner: w.owner };
    },
  });
});

describe('POST /tasks/{id}/subtasks', () => {
  it('adds a subtask at a position; the checklist and list agree with the rows; history 11', async () => {
    const w = await taskWithSubtasks(t, ['a', 'b']);
    const res = await t.as(w.member).post(`/tasks/${w.taskId}/subtasks`, { name: '  middle ', order: '1' });
    expect(res.statusCode).toBe(201);
    const { task, history } = res.json();
    expectTaskForm(task);
    expectHistory(history, w.taskId, 11);
    expect(history).toMatchObject({ userId: w.member.id, taskName: 'Parent', projectName: 'Project', state: 'added subtask "middle" at position 1' });
    const rows = await rowsOf(t, w.taskId);
    expect(rows.map((r) => r.name)).toEqual(['a', 'middle', 'b']);
    expect(task.list).toEqual(rows.map((r, i) => ({ id: r.id, name: r.name, isChecked: false, taskId: w.taskId, childTaskId: null, order: String(i) })));
    expect(task.checklist).toEqual({ items: 3, itemsChecked: 0 });
    expect((await historyOf(t, w.taskId)).at(-1)).toEqual({ type: 11, userId: w.member.id });
  });

  it('appends by default and clamps a position past the end', async () => {
    const w = await taskWithSubtasks(t, ['a']);
    await t.as(w.owner).post(`/tasks/${w.taskId}/subtasks`, { name: 'b' });
    await t.as(w.owner).post(`/tasks/${w.taskId}/subtasks`, { name: 'c', order: 99 });
    expect((await rowsOf(t, w.taskId)).map((r) => r.name)).toEqual(['a', 'b', 'c']);
  });

  it('refuses an archived task (409), changing nothing', async () => {
    const w = await taskWithSubtasks(t, []);
    expect((await t.as(w.owner).patch(`/tasks/${w.taskId}/archive`, { stageId: w.stageIds[0] })).statusCode).toBe(200);
    expectProblem(await t.as(w.owner).post(`/tasks/${w.taskId}/subtasks`, { name: 'x' }), 409, 'CONFLICT');
    expect(await rowsOf(t, w.taskId)).toEqual([]);
  });

  commonCases(t, 'POST /tasks/{id}/subtasks', {
    method: 'POST',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, []);
      return { url: `/tasks/${w.taskId}/subtasks`, owner: w.owner, body: { name: 'x' }, badBody: { name: '' }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{id}/subtasks/{sid}/name', () => {
  it('renames a subtask (history 11)', async () => {
    const w = await taskWithSubtasks(t, ['old']);
    const res = await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}/name`, { name: 'new' });
    expect(res.statusCode).toBe(200);
    expectTaskForm(res.json().task);
    expect(res.json().task.list[0]).toMatchObject({ id: w.subtaskIds[0], name: 'new' });
    expectHistory(res.json().history, w.taskId, 11);
    expect(res.json().history.state).toBe('renamed subtask "old" to "new"');
    expect(await rowsOf(t, w.taskId)).toEqual([{ id: w.subtaskIds[0], name: 'new', isChecked: false }]);
  });

  it('answers 404 for a subtask of another task', async () => {
    const w = await taskWithSubtasks(t, ['x']);
    const other = await w.f.task(w.owner, w.stageIds[0]!);
    expectProblem(await t.as(w.owner).patch(`/tasks/${other.id}/subtasks/${w.subtaskIds[0]}/name`, { name: 'y' }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'PATCH /tasks/{id}/subtasks/{sid}/name', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, ['x']);
      return { url: `/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}/name`, owner: w.owner, body: { name: 'y' }, badBody: { name: 42 }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{id}/subtasks/{sid}/order', () => {
  it('moves a subtask; positions stay dense (history 11)', async () => {
    const w = await taskWithSubtasks(t, ['a', 'b', 'c', 'd']);
    const res = await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[3]}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expectHistory(res.json().history, w.taskId, 11);
    expect(res.json().task.list.map((s: { name: string; order: string }) => `${s.name}${s.order}`)).toEqual(['d0', 'a1', 'b2', 'c3']);
    expect((await rowsOf(t, w.taskId)).map((r) => r.name)).toEqual(['d', 'a', 'b', 'c']);
    await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[3]}/order`, { order: '2' });
    expect((await rowsOf(t, w.taskId)).map((r) => r.name)).toEqual(['a', 'b', 'd', 'c']);
  });

  commonCases(t, 'PATCH /tasks/{id}/subtasks/{sid}/order', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, ['a', 'b']);
      return { url: `/tasks/${w.taskId}/subtasks/${w.subtaskIds[1]}/order`, owner: w.owner, body: { order: 0 }, badBody: { order: -1 }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{id}/subtasks/{sid}/is-checked', () => {
  it('checks and unchecks; checklist counts follow (history 11)', async () => {
    const w = await taskWithSubtasks(t, ['a', 'b']);
    const res = await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[1]}/is-checked`, { isChecked: true });
    expect(res.statusCode).toBe(200);
    expectTaskForm(res.json().task);
    expect(res.json().task.checklist).toEqual({ items: 2, itemsChecked: 1 });
    expect(res.json().task.list.map((s: { isChecked: boolean }) => s.isChecked)).toEqual([false, true]);
    expectHistory(res.json().history, w.taskId, 11);
    expect(res.json().history.state).toBe('checked subtask "b"');
    // Retry-safe: the same request again changes nothing but still answers with its record.
    const again = await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[1]}/is-checked`, { isChecked: true });
    expect(again.json().task.checklist).toEqual({ items: 2, itemsChecked: 1 });
    const off = await t.as(w.member).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[1]}/is-checked`, { isChecked: false });
    expect(off.json().task.checklist).toEqual({ items: 2, itemsChecked: 0 });
    expect((await rowsOf(t, w.taskId)).map((r) => r.isChecked)).toEqual([false, false]);
  });

  commonCases(t, 'PATCH /tasks/{id}/subtasks/{sid}/is-checked', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, ['a']);
      return { url: `/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}/is-checked`, owner: w.owner, body: { isChecked: true }, badBody: { isChecked: 'yes' }, forbidden: w.reader };
    },
  });
});

describe('DELETE /tasks/{id}/subtasks/{sid}', () => {
  it('deletes a subtask and closes ranks (200 TH, history 11)', async () => {
    const w = await taskWithSubtasks(t, ['a', 'b', 'c']);
    await t.as(w.owner).patch(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}/is-checked`, { isChecked: true });
    const res = await t.as(w.member).delete(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}`);
    expect(res.statusCode).toBe(200);
    expectTaskForm(res.json().task);
    expectHistory(res.json().history, w.taskId, 11);
    expect(res.json().task.checklist).toEqual({ items: 2, itemsChecked: 0 });
    expect(await rowsOf(t, w.taskId)).toEqual([
      { id: w.subtaskIds[1], name: 'b', isChecked: false },
      { id: w.subtaskIds[2], name: 'c', isChecked: false },
    ]);
    expectProblem(await t.as(w.member).delete(`/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'DELETE /tasks/{id}/subtasks/{sid}', {
    method: 'DELETE',
    async setup(kit) {
      const w = await taskWithSubtasks(kit, ['a']);
      return { url: `/tasks/${w.taskId}/subtasks/${w.subtaskIds[0]}`, owner: w.owner, forbidden: w.reader };
    },
  });
});
