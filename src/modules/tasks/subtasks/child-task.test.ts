import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, columnTasks, expectHistory, expectTaskForm, historyOf, spaceMember } from '../tasks.fixtures.js';

const t = useTestApp();

async function parentWithSubtask(kit: TestKit, name = 'Write the docs') {
  const b = await boardWithRoles(kit);
  const parent = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Parent' });
  const res = await kit.as(b.owner).post(`/tasks/${parent.id}/subtasks`, { name });
  if (res.statusCode !== 201) throw new Error(res.body);
  return { ...b, parentId: Number(parent.id), subtaskId: Number(res.json().task.list[0].id) };
}

const statusOf = async (kit: TestKit, taskId: number) =>
  Number((await kit.sql<{ status: number }>(sql`select status from tasks where id = ${taskId}`))[0]!.status);
const checkedOf = async (kit: TestKit, subtaskId: number) =>
  (await kit.sql<{ c: boolean }>(sql`select is_checked as c from subtasks where id = ${subtaskId}`))[0]!.c;

describe('POST /tasks/{id}/subtasks/{sid}/child-task', () => {
  it('creates the linked child task in the column (201 TH of the child, history 11 on both)', async () => {
    const w = await parentWithSubtask(t);
    const res = await t.as(w.member).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[1] });
    expect(res.statusCode).toBe(201);
    const { task, history } = res.json();
    expectTaskForm(task);
    expect(task).toMatchObject({ name: 'Write the docs', status: 0, creatorId: w.member.id, parentTaskIds: [w.parentId] });
    expect(task.stages).toEqual([{ stageId: w.stageIds[1], order: '0', pinned: true, projectId: w.project.id }]);
    expectHistory(history, task.id, 11);
    expect(await columnTasks(t, w.stageIds[1]!)).toEqual([task.id]);
    expect(await historyOf(t, task.id)).toEqual([{ type: 0, userId: w.member.id }, { type: 11, userId: w.member.id }]);
    expect((await historyOf(t, w.parentId)).at(-1)).toEqual({ type: 11, userId: w.member.id });
    const parent = (await t.as(w.owner).get(`/tasks/${w.parentId}`)).json();
    expect(parent.list[0]).toMatchObject({ id: w.subtaskId, childTaskId: task.id });
  });

  it('keeps subtask and child in step both ways', async () => {
    const w = await parentWithSubtask(t);
    const child = (await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[0] })).json().task;
    // Checking the subtask finishes the child, with the child's own status record.
    const checked = await t.as(w.member).patch(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/is-checked`, { isChecked: true });
    expect(checked.statusCode).toBe(200);
    expect(await statusOf(t, child.id)).toBe(1);
    expect((await historyOf(t, child.id)).at(-1)).toEqual({ type: 4, userId: w.member.id });
    expect((await t.as(w.owner).get(`/tasks/${child.id}`)).json().dateStatusChanged).not.toBeNull();
    // Unchecking reopens it.
    await t.as(w.member).patch(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/is-checked`, { isChecked: false });
    expect(await statusOf(t, child.id)).toBe(0);
    // Finishing the child checks the subtask; reopening unchecks it (the status use case's side).
    expect((await t.as(w.member).patch(`/tasks/${child.id}/status`, { status: 1 })).statusCode).toBe(200);
    expect(await checkedOf(t, w.subtaskId)).toBe(true);
    expect((await t.as(w.owner).get(`/tasks/${w.parentId}`)).json().checklist).toEqual({ items: 1, itemsChecked: 1 });
    await t.as(w.member).patch(`/tasks/${child.id}/status`, { status: 0 });
    expect(await checkedOf(t, w.subtaskId)).toBe(false);
  });

  it('creates a child that is already done from a checked subtask', async () => {
    const w = await parentWithSubtask(t);
    await t.as(w.owner).patch(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/is-checked`, { isChecked: true });
    const res = await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[0] });
    expect(res.json().task.status).toBe(1);
  });

  it('refuses a second child (409) and a full column (400 STAGE_TASKS_LIMIT), changing nothing', async () => {
    const w = await parentWithSubtask(t);
    await t.sql(sql`update stages set tasks_limit = 1 where id = ${w.stageIds[0]}`);
    expectProblem(await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[0] }), 400, 'STAGE_TASKS_LIMIT');
    expect(await t.sql(sql`select child_task_id from subtasks where id = ${w.subtaskId}`)).toEqual([{ child_task_id: null }]);
    expect((await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[1] })).statusCode).toBe(201);
    expectProblem(await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[1] }), 409, 'CONFLICT');
    expect(await columnTasks(t, w.stageIds[1]!)).toHaveLength(1);
  });

  it('needs S:member in the target column too: a column of a space the caller only reads is 403', async () => {
    const w = await parentWithSubtask(t);
    const space = await w.f.space(w.owner, 'Other space');
    const project = await w.f.project(w.owner, space.id, 'Other');
    const stage = await w.f.stage(w.owner, project.id);
    await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${w.owner.organizationId}, ${space.id}, ${w.member.id}, 'reader')`);
    expectProblem(await t.as(w.member).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: stage.id }), 403, 'FORBIDDEN');
    const stranger = await spaceMember(t, w.owner, Number(w.space.id), 'member');
    const hidden = await w.f.stage(w.owner, project.id, 'Hidden');
    expectProblem(await t.as(stranger).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: hidden.id }), 404, 'NOT_FOUND');
  });

  it('deleting the subtask leaves the child on the board, no longer a child', async () => {
    const w = await parentWithSubtask(t);
    const child = (await t.as(w.owner).post(`/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`, { stageId: w.stageIds[0] })).json().task;
    expect((await t.as(w.owner).delete(`/tasks/${w.parentId}/subtasks/${w.subtaskId}`)).statusCode).toBe(200);
    expect((await t.as(w.owner).get(`/tasks/${child.id}`)).json().parentTaskIds).toEqual([]);
  });

  commonCases(t, 'POST /tasks/{id}/subtasks/{sid}/child-task', {
    method: 'POST',
    async setup(kit) {
      const w = await parentWithSubtask(kit);
      return {
        url: `/tasks/${w.parentId}/subtasks/${w.subtaskId}/child-task`,
        owner: w.owner,
        body: { stageId: w.stageIds[1] },
        badBody: { stageId: 'first' },
        forbidden: w.reader,
      };
    },
  });
});
