import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, expectHistory, expectTaskForm, historyOf, spaceMember } from '../tasks.fixtures.js';

const t = useTestApp();

/** A task with the space member as its inspector (added through the spec endpoint). */
async function inspected() {
  const b = await boardWithRoles(t);
  const taskId = Number((await b.f.task(b.owner, b.stageIds[0]!)).id);
  const res = await t.as(b.owner).post(`/tasks/${taskId}/inspetor`, { inspectorId: b.member.id });
  expect(res.statusCode).toBe(201);
  return { ...b, taskId };
}

describe('PATCH /tasks/{taskId}/inspetor/{inspectorId}/status', () => {
  it('lets the inspector set their verdict (200 TH, history 15)', async () => {
    const b = await inspected();
    const res = await t.as(b.member).patch(`/tasks/${b.taskId}/inspetor/${b.member.id}/status`, { status: 2, comment: 'needs tests' });
    expect(res.statusCode).toBe(200);
    const { task, history } = res.json();
    expectTaskForm(task);
    expect(task.inspectors).toEqual([{ userId: b.member.id, status: 2, comment: 'needs tests', updatedAt: expect.any(String) }]);
    expectHistory(history, b.taskId, 15);
    expect(history).toMatchObject({ userId: b.member.id, state: 'set the inspection status to rejected' });

    // Left out, the comment stays; null clears it.
    const approved = (await t.as(b.member).patch(`/tasks/${b.taskId}/inspetor/${b.member.id}/status`, { status: 1 })).json().task;
    expect(approved.inspectors[0]).toMatchObject({ status: 1, comment: 'needs tests' });
    const cleared = (await t.as(b.member).patch(`/tasks/${b.taskId}/inspetor/${b.member.id}/status`, { status: 1, comment: null })).json().task;
    expect(cleared.inspectors[0].comment).toBeNull();
    expect((await historyOf(t, b.taskId)).map((h) => h.type)).toEqual([0, 15, 15, 15, 15]);
  });

  it('answers 404 for a user who does not inspect the task, 403 even to the owner for someone else’s verdict', async () => {
    const b = await inspected();
    expectProblem(await t.as(b.reader).patch(`/tasks/${b.taskId}/inspetor/${b.reader.id}/status`, { status: 1 }), 404);
    expectProblem(await t.as(b.owner).patch(`/tasks/${b.taskId}/inspetor/${b.member.id}/status`, { status: 1 }), 403, 'FORBIDDEN');
    const [row] = await t.sql<{ status: number }>(sql`select status from task_inspectors where task_id = ${b.taskId}`);
    expect(Number(row!.status)).toBe(0);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/inspetor/{inspectorId}/status', {
    method: 'PATCH',
    async setup() {
      const b = await inspected();
      return { url: `/tasks/${b.taskId}/inspetor/${b.member.id}/status`, owner: b.member, body: { status: 1 }, badBody: { status: 3 }, forbidden: b.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}/inspetor/{inspectorId}', () => {
  it('removes an inspector (200 TH, history 15); a second remove is 404', async () => {
    const b = await inspected();
    const res = await t.as(b.member).delete(`/tasks/${b.taskId}/inspetor/${b.member.id}`);
    expect(res.statusCode).toBe(200);
    const { task, history } = res.json();
    expectTaskForm(task);
    expect(task.inspectors).toEqual([]);
    expectHistory(history, b.taskId, 15);
    expect(history.state).toBe(`removed inspector ${b.member.name}`);
    expectProblem(await t.as(b.member).delete(`/tasks/${b.taskId}/inspetor/${b.member.id}`), 404);
  });

  it('refuses an archived task with 409', async () => {
    const b = await inspected();
    await t.sql(sql`update tasks set archived_at = now() where id = ${b.taskId}`);
    expectProblem(await t.as(b.owner).delete(`/tasks/${b.taskId}/inspetor/${b.member.id}`), 409, 'CONFLICT');
  });

  commonCases(t, 'DELETE /tasks/{taskId}/inspetor/{inspectorId}', {
    method: 'DELETE',
    async setup() {
      const b = await inspected();
      return { url: `/tasks/${b.taskId}/inspetor/${b.member.id}`, owner: b.owner, forbidden: b.reader };
    },
  });
});

describe('POST /tasks/{taskId}/inspetor (existing): only space members', () => {
  it('refuses a user outside the task’s spaces with 400', async () => {
    const b = await inspected();
    const outsider = await t.member(b.owner, 'member');
    expectProblem(await t.as(b.owner).post(`/tasks/${b.taskId}/inspetor`, { inspectorId: outsider.id }), 400, 'VALIDATION_FAILED');
    const editor = await spaceMember(t, b.owner, Number(b.space.id), 'editor');
    expect((await t.as(b.owner).post(`/tasks/${b.taskId}/inspetor`, { inspectorId: editor.id })).statusCode).toBe(201);
  });
});
