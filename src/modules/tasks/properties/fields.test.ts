import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { ISO_MS, tasksIn } from '../tasks.fixtures.js';
import { expectChange, historyCount, taskRow, taskWithRoles } from './properties.fixtures.js';

const t = useTestApp();

describe('PATCH /tasks/{taskId}/name', () => {
  it('renames the task (trimmed) and records history 1 naming both names', async () => {
    const w = await taskWithRoles(t, { name: 'Old' });
    const res = await t.as(w.member).patch(w.url('name'), { name: '  New name ' });
    const { task, history } = await expectChange(t, res, 200, w.taskId, 1, w.member.id);
    expect(task.name).toBe('New name');
    expect(history).toMatchObject({ state: 'renamed "Old" to "New name"', taskName: 'New name', projectName: 'Project' });
    expect((await taskRow(t, w.taskId)).name).toBe('New name');
  });

  commonCases(t, 'PATCH /tasks/{taskId}/name', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('name'), owner: w.owner, body: { name: 'X' }, badBody: { name: '   ' }, forbidden: w.reader };
    },
  });
});

describe('GET /tasks/{taskId}/description', () => {
  it('answers {taskId, description, updatedAt} to a reader', async () => {
    const w = await taskWithRoles(t, { description: '# Plan\n\n- one' });
    const res = await t.as(w.reader).get(w.url('description'));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['description', 'taskId', 'updatedAt']);
    expect(body).toMatchObject({ taskId: w.taskId, description: '# Plan\n\n- one' });
    expect(body.updatedAt).toMatch(ISO_MS);
  });

  it('gives the time of the last description change as updatedAt', async () => {
    const w = await taskWithRoles(t);
    const { history } = (await t.as(w.owner).patch(w.url('description'), { description: 'v2' })).json();
    const body = (await t.as(w.owner).get(w.url('description'))).json();
    expect(body).toEqual({ taskId: w.taskId, description: 'v2', updatedAt: history.updateDate });
  });

  commonCases(t, 'GET /tasks/{taskId}/description', {
    method: 'GET',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      // Every space role may read; someone of the organization outside the space may not see the task (404).
      return { url: w.url('description'), owner: w.owner };
    },
  });

  it('answers 404 to an organization member outside the space', async () => {
    const w = await taskWithRoles(t);
    const outsider = await t.member(w.owner, 'member');
    expectProblem(await t.as(outsider).get(w.url('description')), 404, 'NOT_FOUND');
  });
});

describe('PATCH /tasks/{taskId}/description', () => {
  it('stores the text as given and records history 2', async () => {
    const w = await taskWithRoles(t);
    const text = '  <b>Keep</b> me\nexactly  ';
    const res = await t.as(w.member).patch(w.url('description'), { description: text });
    const { task } = await expectChange(t, res, 200, w.taskId, 2, w.member.id);
    expect(task.hasDescription).toBe(true);
    expect((await taskRow(t, w.taskId)).description).toBe(text);
  });

  it('clears it with null or "" (hasDescription false)', async () => {
    for (const empty of [null, '']) {
      const w = await taskWithRoles(t, { description: 'something' });
      const { task, history } = await expectChange(t, await t.as(w.owner).patch(w.url('description'), { description: empty }), 200, w.taskId, 2, w.owner.id);
      expect(task.hasDescription).toBe(false);
      expect(history.state).toBe('cleared the description');
      expect((await t.as(w.owner).get(w.url('description'))).json().description).toBeNull();
    }
  });

  it('accepts 1 MiB of UTF-8 and refuses more with 413, changing nothing', async () => {
    const w = await taskWithRoles(t);
    const mib = 1_048_576;
    await expectChange(t, await t.as(w.owner).patch(w.url('description'), { description: 'a'.repeat(mib) }), 200, w.taskId, 2, w.owner.id);
    // 2 bytes per character: under the character limit, over the byte limit.
    expectProblem(await t.as(w.owner).patch(w.url('description'), { description: 'é'.repeat(mib / 2 + 1) }), 413, 'PAYLOAD_TOO_LARGE');
    expect(((await taskRow(t, w.taskId)).description as string).length).toBe(mib);
    expect(await historyCount(t, w.taskId, 2)).toBe(1);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/description', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('description'), owner: w.owner, body: { description: 'x' }, badBody: { description: 42 }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{taskId}/importance', () => {
  it('sets the importance and records history 6', async () => {
    const w = await taskWithRoles(t);
    const { task, history } = await expectChange(t, await t.as(w.member).patch(w.url('importance'), { importance: 3 }), 200, w.taskId, 6, w.member.id);
    expect(task.importance).toBe(3);
    expect(history.state).toBe('changed the importance from not set to critical');
    const again = await expectChange(t, await t.as(w.member).patch(w.url('importance'), { importance: -1 }), 200, w.taskId, 6, w.member.id);
    expect(again.task.importance).toBe(-1);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/importance', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('importance'), owner: w.owner, body: { importance: 1 }, badBody: { importance: 4 }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{taskId}/status', () => {
  it('changes the status, sets dateStatusChanged and records history 4', async () => {
    const w = await taskWithRoles(t);
    const { task, history } = await expectChange(t, await t.as(w.member).patch(w.url('status'), { status: 1 }), 200, w.taskId, 4, w.member.id);
    expect(task).toMatchObject({ status: 1, blockReason: null });
    expect(task.dateStatusChanged).toMatch(ISO_MS);
    expect(history.state).toBe('changed the status from in work to done');
  });

  it('keeps the block reason for needs attention (also when omitted) and clears it on any other status', async () => {
    const w = await taskWithRoles(t);
    let body = await expectChange(t, await t.as(w.owner).patch(w.url('status'), { status: 3, blockReason: 'waiting for design' }), 200, w.taskId, 4, w.owner.id);
    expect(body.task).toMatchObject({ status: 3, blockReason: 'waiting for design' });
    const firstChange = body.task.dateStatusChanged;
    body = await expectChange(t, await t.as(w.owner).patch(w.url('status'), { status: 3 }), 200, w.taskId, 4, w.owner.id);
    expect(body.task).toMatchObject({ status: 3, blockReason: 'waiting for design', dateStatusChanged: firstChange });
    body = await expectChange(t, await t.as(w.owner).patch(w.url('status'), { status: 0 }), 200, w.taskId, 4, w.owner.id);
    expect(body.task).toMatchObject({ status: 0, blockReason: null });
    expect(Date.parse(body.task.dateStatusChanged)).toBeGreaterThanOrEqual(Date.parse(firstChange));
  });

  it('refuses a block reason with another status (400), changing nothing', async () => {
    const w = await taskWithRoles(t);
    expectProblem(await t.as(w.owner).patch(w.url('status'), { status: 1, blockReason: 'x' }), 400, 'VALIDATION_FAILED');
    expect((await taskRow(t, w.taskId)).status).toBe(0);
    expect(await historyCount(t, w.taskId, 4)).toBe(0);
  });

  it('checks the subtask linked to a finished child task, with a history record on the parent', async () => {
    const w = await taskWithRoles(t);
    const child = await w.f.task(w.owner, w.stageIds[0]!, { name: 'Child' });
    await t.sql(sql`insert into subtasks (organization_id, task_id, name, child_task_id) values (${w.owner.organizationId}, ${w.taskId}, 'Linked', ${child.id})`);
    await expectChange(t, await t.as(w.owner).patch(`/tasks/${child.id}/status`, { status: 1 }), 200, Number(child.id), 4, w.owner.id);
    const parent = (await t.as(w.owner).get(`/tasks/${w.taskId}`)).json();
    expect(parent.checklist).toEqual({ items: 1, itemsChecked: 1 });
    const [h] = await t.sql<{ type: number; state: string }>(sql`select type, state from task_history where task_id = ${w.taskId} order by id desc limit 1`);
    expect(h).toEqual({ type: 11, state: 'checked subtask "Linked": its task was finished' });
    await t.as(w.owner).patch(`/tasks/${child.id}/status`, { status: 0 });
    expect((await t.as(w.owner).get(`/tasks/${w.taskId}`)).json().checklist).toEqual({ items: 1, itemsChecked: 0 });
  });

  commonCases(t, 'PATCH /tasks/{taskId}/status', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('status'), owner: w.owner, body: { status: 2 }, badBody: { status: 4 }, forbidden: w.reader };
    },
  });
});

describe('PATCH /tasks/{taskId}/dates', () => {
  it('changes the given dates, keeps the others, clears with null, and records history 5', async () => {
    const w = await taskWithRoles(t, { dateBegin: '2026-03-01T09:00:00Z', dateEndWithoutTime: '2026-03-10' });
    let { task } = await expectChange(t, await t.as(w.member).patch(w.url('dates'), { dateEnd: '2026-03-05T17:30:00.5Z' }), 200, w.taskId, 5, w.member.id);
    expect(task).toMatchObject({
      dateBegin: '2026-03-01T09:00:00.000Z',
      dateEnd: '2026-03-05T17:30:00.500Z',
      dateBeginWithoutTime: null,
      dateEndWithoutTime: '2026-03-10',
    });
    ({ task } = await expectChange(t, await t.as(w.member).patch(w.url('dates'), { dateBegin: null, dateEndWithoutTime: null, dateBeginWithoutTime: '2026-03-02' }), 200, w.taskId, 5, w.member.id));
    expect(task).toMatchObject({ dateBegin: null, dateEnd: '2026-03-05T17:30:00.500Z', dateBeginWithoutTime: '2026-03-02', dateEndWithoutTime: null });
  });

  it('refuses a resulting begin after the end with 400 DATE_RANGE, with or without time, changing nothing', async () => {
    const w = await taskWithRoles(t, { dateBegin: '2026-03-05T10:00:00Z', dateEnd: '2026-03-06T10:00:00Z' });
    const before = await taskRow(t, w.taskId);
    for (const body of [
      { dateEnd: '2026-03-04T00:00:00Z' },
      { dateBegin: '2026-03-07T00:00:00Z' },
      { dateEndWithoutTime: '2026-03-04' },
      { dateBegin: null, dateEnd: null, dateBeginWithoutTime: '2026-03-09', dateEndWithoutTime: '2026-03-08' },
    ]) {
      expectProblem(await t.as(w.owner).patch(w.url('dates'), body), 400, 'DATE_RANGE');
    }
    expect(await taskRow(t, w.taskId)).toEqual(before);
    expect(await historyCount(t, w.taskId, 5)).toBe(0);
    // The same day, with and without time, is a valid range.
    await expectChange(t, await t.as(w.owner).patch(w.url('dates'), { dateEnd: null, dateEndWithoutTime: '2026-03-05' }), 200, w.taskId, 5, w.owner.id);
  });

  it('keeps the range under concurrent changes: of two patches that only together invert it, one fails', async () => {
    const w = await taskWithRoles(t);
    const tasks = [w.taskId, ...(await tasksIn(t, w.owner, w.stageIds[1]!, 5))];
    const pairs = await Promise.all(
      tasks.map((id) =>
        Promise.all([
          t.as(w.owner).patch(`/tasks/${id}/dates`, { dateBegin: '2026-05-10T00:00:00Z' }),
          t.as(w.member).patch(`/tasks/${id}/dates`, { dateEnd: '2026-05-05T00:00:00Z' }),
        ]),
      ),
    );
    for (const [i, results] of pairs.entries()) {
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
      expectProblem(results.find((r) => r.statusCode === 400)!, 400, 'DATE_RANGE');
      expect(await historyCount(t, tasks[i]!, 5)).toBe(1);
    }
  });

  commonCases(t, 'PATCH /tasks/{taskId}/dates', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      return { url: w.url('dates'), owner: w.owner, body: { dateBeginWithoutTime: '2026-01-01' }, badBody: {}, forbidden: w.reader };
    },
  });
});

describe('property changes on an archived task', () => {
  it('answer 409 CONFLICT, changing nothing', async () => {
    const w = await taskWithRoles(t);
    expect((await t.as(w.owner).patch(w.url('archive'), { stageId: w.stageIds[0] })).statusCode).toBe(200);
    expectProblem(await t.as(w.owner).patch(w.url('name'), { name: 'Nope' }), 409, 'CONFLICT');
    expect((await taskRow(t, w.taskId)).name).toBe('Task');
  });
});
