import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { expectChange, historyCount, taskWithRoles } from './properties.fixtures.js';

const t = useTestApp();

const assignees = async (kit: TestKit, taskId: number) =>
  (await kit.sql<{ userId: number }>(sql`select user_id as "userId" from task_assignees where task_id = ${taskId} order by user_id`)).map((r) => Number(r.userId));
const members = async (kit: TestKit, taskId: number) =>
  (await kit.sql<{ userId: number }>(sql`select user_id as "userId" from task_members where task_id = ${taskId} order by user_id`)).map((r) => Number(r.userId));
const labelsOf = async (kit: TestKit, taskId: number) =>
  (await kit.sql<{ labelId: number }>(sql`select label_id as "labelId" from task_labels where task_id = ${taskId} order by label_id`)).map((r) => Number(r.labelId));

async function label(kit: TestKit, owner: TestUser, name = 'bug'): Promise<number> {
  const res = await kit.as(owner).post('/labels', { name, color: '#FF0000' });
  if (res.statusCode !== 201) throw new Error(`label: ${res.statusCode} ${res.body}`);
  return Number(res.json().id);
}

describe('POST /tasks/{taskId}/assignees', () => {
  it('adds an assignee (201) with history 8', async () => {
    const w = await taskWithRoles(t);
    const { task, history } = await expectChange(t, await t.as(w.member).post(w.url('assignees'), { userId: w.reader.id }), 201, w.taskId, 8, w.member.id);
    expect(task.responsibleUserId).toEqual([w.reader.id]);
    expect(history.state).toBe(`added assignee ${w.reader.name}`);
  });

  it('is retry-safe: adding again answers 201 with no duplicate and a history record saying nothing changed', async () => {
    const w = await taskWithRoles(t);
    await t.as(w.owner).post(w.url('assignees'), { userId: w.member.id });
    const { task, history } = await expectChange(t, await t.as(w.owner).post(w.url('assignees'), { userId: w.member.id }), 201, w.taskId, 8, w.owner.id);
    expect(task.responsibleUserId).toEqual([w.member.id]);
    expect(history.state).toBe(`${w.member.name} was already an assignee`);
    expect(await assignees(t, w.taskId)).toEqual([w.member.id]);
  });

  it('refuses someone outside the task space with 400, changing nothing', async () => {
    const w = await taskWithRoles(t);
    const outsider = await t.member(w.owner, 'member');
    const stranger = await t.org();
    for (const id of [outsider.id, stranger.id]) {
      const problem = expectProblem(await t.as(w.owner).post(w.url('assignees'), { userId: id }), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: '/userId', message: expect.any(String) }]);
    }
    expect(await assignees(t, w.taskId)).toEqual([]);
    expect(await historyCount(t, w.taskId, 8)).toBe(0);
  });

  commonCases(t, 'POST /tasks/{taskId}/assignees', {
    method: 'POST',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('assignees'), owner: w.owner, body: { userId: w.member.id }, badBody: { userId: 'me' }, forbidden: w.reader, userIds: [w.member.id] };
    },
  });
});

describe('PATCH /tasks/{taskId}/assignees', () => {
  it('replaces the set (200) with history 8 naming who joined and who left', async () => {
    const b = await taskWithRoles(t);
    await t.as(b.owner).post(b.url('assignees'), { userId: b.member.id });
    const res = await t.as(b.member).patch(b.url('assignees'), { responsibleUserId: [b.reader.id, b.owner.id, b.reader.id] });
    const { task, history } = await expectChange(t, res, 200, b.taskId, 8, b.member.id);
    expect([...task.responsibleUserId].sort((x: number, y: number) => x - y)).toEqual([b.owner.id, b.reader.id].sort((x, y) => x - y));
    expect(history.state).toMatch(/^changed the assignees: added .+; removed Member member$/);
    expect(await assignees(t, b.taskId)).toEqual([b.owner.id, b.reader.id].sort((x, y) => x - y));
    const cleared = await expectChange(t, await t.as(b.member).patch(b.url('assignees'), { responsibleUserId: [] }), 200, b.taskId, 8, b.member.id);
    expect(cleared.task.responsibleUserId).toEqual([]);
  });

  it('refuses a set with someone outside the space (400), changing nothing', async () => {
    const w = await taskWithRoles(t);
    await t.as(w.owner).post(w.url('assignees'), { userId: w.member.id });
    const outsider = await t.member(w.owner, 'member');
    expectProblem(await t.as(w.owner).patch(w.url('assignees'), { responsibleUserId: [w.reader.id, outsider.id] }), 400, 'VALIDATION_FAILED');
    expect(await assignees(t, w.taskId)).toEqual([w.member.id]);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/assignees', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('assignees'), owner: w.owner, body: { responsibleUserId: [w.member.id] }, badBody: { responsibleUserId: w.member.id }, forbidden: w.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}/assignees/{userId}', () => {
  it('removes an assignee (200) with history 8; removing again changes nothing', async () => {
    const w = await taskWithRoles(t);
    await t.as(w.owner).post(w.url('assignees'), { userId: w.member.id });
    const { task, history } = await expectChange(t, await t.as(w.member).delete(w.url(`assignees/${w.member.id}`)), 200, w.taskId, 8, w.member.id);
    expect(task.responsibleUserId).toEqual([]);
    expect(history.state).toBe(`removed assignee ${w.member.name}`);
    const again = await expectChange(t, await t.as(w.member).delete(w.url(`assignees/${w.member.id}`)), 200, w.taskId, 8, w.member.id);
    expect(again.history.state).toBe(`${w.member.name} was not an assignee`);
  });

  commonCases(t, 'DELETE /tasks/{taskId}/assignees/{userId}', {
    method: 'DELETE',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      await kit.as(w.owner).post(w.url('assignees'), { userId: w.member.id });
      return { url: w.url(`assignees/${w.member.id}`), owner: w.owner, forbidden: w.reader };
    },
  });
});

describe('POST /tasks/{taskId}/members', () => {
  it('adds a member (201) with history 9, once', async () => {
    const w = await taskWithRoles(t);
    const { task, history } = await expectChange(t, await t.as(w.member).post(w.url('members'), { userId: w.reader.id }), 201, w.taskId, 9, w.member.id);
    expect(task.members).toEqual([w.reader.id]);
    expect(history.state).toBe(`added member ${w.reader.name}`);
    await expectChange(t, await t.as(w.member).post(w.url('members'), { userId: w.reader.id }), 201, w.taskId, 9, w.member.id);
    expect(await members(t, w.taskId)).toEqual([w.reader.id]);
  });

  it('refuses someone outside the space (400)', async () => {
    const w = await taskWithRoles(t);
    const outsider = await t.member(w.owner, 'member');
    expectProblem(await t.as(w.owner).post(w.url('members'), { userId: outsider.id }), 400, 'VALIDATION_FAILED');
    expect(await members(t, w.taskId)).toEqual([]);
  });

  commonCases(t, 'POST /tasks/{taskId}/members', {
    method: 'POST',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('members'), owner: w.owner, body: { userId: w.member.id }, badBody: {}, forbidden: w.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}/members/{userId}', () => {
  it('removes a member (200) with history 9', async () => {
    const w = await taskWithRoles(t);
    await t.as(w.owner).post(w.url('members'), { userId: w.member.id });
    const { task, history } = await expectChange(t, await t.as(w.owner).delete(w.url(`members/${w.member.id}`)), 200, w.taskId, 9, w.owner.id);
    expect(task.members).toEqual([]);
    expect(history.state).toBe(`removed member ${w.member.name}`);
  });

  commonCases(t, 'DELETE /tasks/{taskId}/members/{userId}', {
    method: 'DELETE',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      await kit.as(w.owner).post(w.url('members'), { userId: w.member.id });
      return { url: w.url(`members/${w.member.id}`), owner: w.owner, forbidden: w.reader };
    },
  });
});

describe('POST /tasks/{taskId}/labels', () => {
  it('attaches a label of the organization (201) with history 10, once', async () => {
    const w = await taskWithRoles(t);
    const labelId = await label(t, w.owner, 'urgent');
    const { task, history } = await expectChange(t, await t.as(w.member).post(w.url('labels'), { labelId }), 201, w.taskId, 10, w.member.id);
    expect(task.tags).toEqual([labelId]);
    expect(history.state).toBe('added the label "urgent"');
    const again = await expectChange(t, await t.as(w.member).post(w.url('labels'), { labelId }), 201, w.taskId, 10, w.member.id);
    expect(again.task.tags).toEqual([labelId]);
    expect(again.history.state).toBe('the label "urgent" was already on the task');
  });

  it("refuses another organization's or a missing label with 400 REFERENCE_NOT_FOUND, changing nothing", async () => {
    const w = await taskWithRoles(t);
    const stranger = await t.org();
    const foreign = await label(t, stranger);
    for (const labelId of [foreign, foreign + 1_000_000]) {
      expectProblem(await t.as(w.owner).post(w.url('labels'), { labelId }), 400, 'REFERENCE_NOT_FOUND');
    }
    expect(await labelsOf(t, w.taskId)).toEqual([]);
    expect(await historyCount(t, w.taskId, 10)).toBe(0);
  });

  commonCases(t, 'POST /tasks/{taskId}/labels', {
    method: 'POST',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      const labelId = await label(kit, w.owner);
      return { url: w.url('labels'), owner: w.owner, body: { labelId }, badBody: { labelId: 0 }, forbidden: w.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}/labels/{labelId}', () => {
  it('detaches a label (200) with history 10; the label itself stays', async () => {
    const w = await taskWithRoles(t);
    const labelId = await label(t, w.owner, 'later');
    await t.as(w.owner).post(w.url('labels'), { labelId });
    const { task, history } = await expectChange(t, await t.as(w.member).delete(w.url(`labels/${labelId}`)), 200, w.taskId, 10, w.member.id);
    expect(task.tags).toEqual([]);
    expect(history.state).toBe('removed the label "later"');
    expect(await t.sql(sql`select id from labels where id = ${labelId}`)).toHaveLength(1);
  });

  commonCases(t, 'DELETE /tasks/{taskId}/labels/{labelId}', {
    method: 'DELETE',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      const labelId = await label(kit, w.owner);
      await kit.as(w.owner).post(w.url('labels'), { labelId });
      return { url: w.url(`labels/${labelId}`), owner: w.owner, forbidden: w.reader };
    },
  });
});
