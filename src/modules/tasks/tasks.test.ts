import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import {
  boardWithRoles,
  columnTasks,
  expectColorForm,
  expectHistory,
  expectTaskForm,
  historyOf,
  spaceMember,
  tasksIn,
} from './tasks.fixtures.js';

const t = useTestApp();

describe('POST /tasks', () => {
  it('creates a task in the spec form (201) with its history row', async () => {
    const b = await boardWithRoles(t);
    const res = await t.as(b.member).post('/tasks', {
      name: '  Write the spec  ',
      stageId: b.stageIds[0],
      order: 0,
      responsibleUserId: [b.member.id, b.owner.id],
      description: 'Long text',
      color: '#A1B2C3',
      dateBegin: '2026-01-05T09:00:00Z',
      dateEnd: '2026-01-06T18:30:00.250Z',
      dateBeginWithoutTime: '2026-01-05',
      dateEndWithoutTime: '2026-01-06',
      importance: 2,
    });
    expect(res.statusCode).toBe(201);
    const { task, history } = res.json();
    expectTaskForm(task);
    expect(task).toMatchObject({
      name: 'Write the spec',
      creatorId: b.member.id,
      color: '#A1B2C3',
      status: 0,
      dateBegin: '2026-01-05T09:00:00.000Z',
      dateEnd: '2026-01-06T18:30:00.250Z',
      dateBeginWithoutTime: '2026-01-05',
      dateEndWithoutTime: '2026-01-06',
      importance: 2,
      stages: [{ stageId: b.stageIds[0], order: '0', pinned: true, projectId: b.project.id }],
      // Assignees added together list by user id.
      responsibleUserId: [b.member.id, b.owner.id].sort((x, y) => x - y),
      hasDescription: true,
      hasMessages: false,
      checklist: { items: 0, itemsChecked: 0 },
      cover: null,
      planTime: 0,
      factTime: 0,
    });
    expectHistory(history, task.id, 0);
    expect(history).toMatchObject({ userId: b.member.id, projectName: 'Project', taskName: 'Write the spec' });
    expect(await historyOf(t, task.id)).toEqual([{ type: 0, userId: b.member.id }]);
  });

  it('appended (no order), answers the same form a read of the task gives, at the end of the column', async () => {
    const b = await boardWithRoles(t);
    await t.as(b.member).post('/tasks', { name: 'first', stageId: b.stageIds[1] });
    await t.as(b.member).post('/tasks', { name: 'second', stageId: b.stageIds[1] });
    const forms = [
      { name: 'bare', stageId: b.stageIds[1] },
      {
        name: 'full',
        stageId: b.stageIds[1],
        responsibleUserId: [b.owner.id, b.member.id].sort((x, y) => y - x),
        description: 'text',
        color: '#010203',
        dateBegin: '2026-01-05T09:00:00.5Z',
        dateEndWithoutTime: '2026-01-06',
        importance: 3,
      },
    ];
    for (const [i, body] of forms.entries()) {
      const res = await t.as(b.member).post('/tasks', body);
      expect(res.statusCode).toBe(201);
      const { task } = res.json();
      expect(task.stages).toEqual([{ stageId: b.stageIds[1], order: String(2 + i), pinned: true, projectId: b.project.id }]);
      const read = await t.as(b.member).get(`/tasks/${task.id}`);
      expect(read.statusCode).toBe(200);
      expect(task).toEqual(read.json());
    }
  });

  it('at a position (top, middle, past the end), answers the same form a read of the task gives', async () => {
    const b = await boardWithRoles(t);
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const placed: Array<[number, string]> = [];
    for (const [order, expected] of [[0, '0'], ['2', '2'], [99, '4'], [1, '1']] as const) {
      const res = await t.as(b.member).post('/tasks', { name: `at ${order}`, stageId: b.stageIds[0], order, responsibleUserId: [b.owner.id] });
      expect(res.statusCode).toBe(201);
      const { task } = res.json();
      expect(task.stages).toEqual([{ stageId: b.stageIds[0], order: expected, pinned: true, projectId: b.project.id }]);
      const read = await t.as(b.member).get(`/tasks/${task.id}`);
      expect(task).toEqual(read.json());
      placed.push([Number(task.id), expected]);
    }
    const [top, mid, end, second] = placed.map(([id]) => id);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([top, second, a, mid, c, end]);
  });

  it('places the task at `order` and renumbers the column densely; no order means the end', async () => {
    const b = await boardWithRoles(t);
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const mid = (await t.as(b.owner).post('/tasks', { name: 'Mid', stageId: b.stageIds[0], order: '1' })).json().task;
    expect(mid.stages[0].order).toBe('1');
    const last = (await t.as(b.owner).post('/tasks', { name: 'Last', stageId: b.stageIds[0] })).json().task;
    const first = (await t.as(b.owner).post('/tasks', { name: 'First', stageId: b.stageIds[0], order: 0 })).json().task;
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([first.id, a, mid.id, c, last.id]);
  });

  it('refuses a full column with 400 STAGE_TASKS_LIMIT, creating nothing', async () => {
    const b = await boardWithRoles(t);
    await t.sql(sql`update stages set tasks_limit = 2 where id = ${b.stageIds[0]}`);
    await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    expectProblem(await t.as(b.owner).post('/tasks', { name: 'Third', stageId: b.stageIds[0] }), 400, 'STAGE_TASKS_LIMIT');
    expect(await columnTasks(t, b.stageIds[0]!)).toHaveLength(2);
  });

  it('refuses assignees who are not members of the space (400) and an inverted date range', async () => {
    const b = await boardWithRoles(t);
    const outsider = await t.member(b.owner, 'member');
    const stranger = await t.org();
    for (const id of [outsider.id, stranger.id]) {
      const problem = expectProblem(await t.as(b.owner).post('/tasks', { name: 'X', stageId: b.stageIds[0], responsibleUserId: [id] }), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: '/responsibleUserId', message: expect.any(String) }]);
    }
    expectProblem(
      await t.as(b.owner).post('/tasks', { name: 'X', stageId: b.stageIds[0], dateBegin: '2026-02-02T00:00:00Z', dateEnd: '2026-02-01T00:00:00Z' }),
      400,
      'DATE_RANGE',
    );
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([]);
  });

  commonCases(t, 'POST /tasks', {
    method: 'POST',
    foreignId: true,
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: '/tasks', owner: b.owner, body: { name: 'T', stageId: b.stageIds[0], order: 0 }, badBody: { name: '', stageId: b.stageIds[0] }, forbidden: b.reader };
    },
  });
});

describe('GET /tasks/{taskId}', () => {
  it('answers Task(full) with the derived fields computed from their rows', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!, { description: '' });
    const parent = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Parent' });
    const org = b.owner.organizationId;
    await t.sql(sql`insert into subtasks (organization_id, task_id, name, is_checked, "order") values (${org}, ${task.id}, 'one', true, 0), (${org}, ${task.id}, 'two', false, 1)`);
    await t.sql(sql`insert into subtasks (organization_id, task_id, name, child_task_id, "order") values (${org}, ${parent.id}, 'linked', ${task.id}, 0)`);
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${task.id}, ${b.owner.id}, 'hi')`);
    await t.sql(sql`insert into time_records (organization_id, task_id, user_id, date, hours) values (${org}, ${task.id}, ${b.owner.id}, '2026-01-01', 1.5), (${org}, ${task.id}, ${b.owner.id}, '2026-01-02', 2)`);
    await t.sql(sql`insert into task_members (organization_id, task_id, user_id) values (${org}, ${task.id}, ${b.member.id})`);
    const [label] = await t.sql<{ id: number }>(sql`insert into labels (organization_id, name, color) values (${org}, 'bug', '#FF0000') returning id`);
    await t.sql(sql`insert into task_labels (organization_id, task_id, label_id) values (${org}, ${task.id}, ${label!.id})`);

    const res = await t.as(b.reader).get(`/tasks/${task.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectTaskForm(body);
    expect(body).toMatchObject({
      id: task.id,
      hasDescription: false,
      hasMessages: true,
      factTime: 3.5,
      members: [b.member.id],
      tags: [Number(label!.id)],
      parentTaskIds: [parent.id],
      checklist: { items: 2, itemsChecked: 1 },
      list: [
        { name: 'one', isChecked: true, taskId: task.id, childTaskId: null, order: '0' },
        { name: 'two', isChecked: false, taskId: task.id, childTaskId: null, order: '1' },
      ],
    });
  });

  it('answers 404 for a task whose project is in the trash, and for another organization', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    expectProblem(await t.as(await t.org()).get(`/tasks/${task.id}`), 404, 'NOT_FOUND');
    await t.sql(sql`update projects set deleted_at = now() where id = ${b.project.id}`);
    expectProblem(await t.as(b.owner).get(`/tasks/${task.id}`), 404, 'NOT_FOUND');
  });

  it('answers 404 to an organization member outside the space', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    expectProblem(await t.as(await t.member(b.owner, 'member')).get(`/tasks/${task.id}`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'GET /tasks/{taskId}', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/tasks/${task.id}`, owner: b.owner };
    },
  });
});

describe('PATCH /tasks/{taskId}/color', () => {
  it('sets, replaces and resets the colour, answering the flat colour form', async () => {
    const b = await boardWithRoles(t);
    const [, second] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const set = await t.as(b.member).patch(`/tasks/${second}/color`, { color: '#00ff00' });
    expect(set.statusCode).toBe(200);
    expectColorForm(set.json().task);
    expect(set.json().task).toMatchObject({ id: second, color: '#00ff00', order: '1', stageId: b.stageIds[0], spaceId: b.space.id });
    expectHistory(set.json().history, second!, 7);
    const reset = await t.as(b.member).patch(`/tasks/${second}/color`, { color: '' });
    expect(reset.json().task.color).toBe('');
    expect((await t.as(b.member).get(`/tasks/${second}`)).json().color).toBeNull();
    expect((await t.as(b.member).patch(`/tasks/${second}/color`, { color: null })).statusCode).toBe(200);
    expect((await historyOf(t, second!)).map((h) => h.type)).toEqual([0, 7, 7, 7]);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/color', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/tasks/${task.id}/color`, owner: b.owner, body: { color: '#123456' }, badBody: { color: 'red' }, forbidden: b.reader };
    },
  });
});

describe('PATCH /tasks/{taskId}/set-plan-time', () => {
  it('sets the planned time and answers 201 as the spec does', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    const res = await t.as(b.member).patch(`/tasks/${task.id}/set-plan-time`, { planTime: 7.5 });
    expect(res.statusCode).toBe(201);
    expectTaskForm(res.json().task);
    expect(res.json().task.planTime).toBe(7.5);
    expectHistory(res.json().history, task.id, 13);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/set-plan-time', {
    method: 'PATCH',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/tasks/${task.id}/set-plan-time`, owner: b.owner, body: { planTime: 3 }, badBody: { planTime: -1 }, forbidden: b.reader };
    },
  });
});

describe('POST /tasks/{taskId}/inspetor', () => {
  it('adds an inspector (201) and refuses a second time (409) and a non-member (400)', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!);
    const res = await t.as(b.member).post(`/tasks/${task.id}/inspetor`, { inspectorId: b.reader.id });
    expect(res.statusCode).toBe(201);
    expectTaskForm(res.json().task);
    expect(res.json().task.inspectors).toEqual([{ userId: b.reader.id, status: 0, comment: null, updatedAt: expect.any(String) }]);
    expectHistory(res.json().history, task.id, 15);
    expectProblem(await t.as(b.member).post(`/tasks/${task.id}/inspetor`, { inspectorId: b.reader.id }), 409, 'CONFLICT');
    const outsider = await t.member(b.owner, 'member');
    expectProblem(await t.as(b.member).post(`/tasks/${task.id}/inspetor`, { inspectorId: outsider.id }), 400, 'VALIDATION_FAILED');
  });

  it('is marked x-developing in the OpenAPI document', async () => {
    const doc = (await t.as(null).get('/openapi.json')).json();
    expect(doc.paths['/tasks/{taskId}/inspetor'].post['x-developing']).toBe(true);
  });

  commonCases(t, 'POST /tasks/{taskId}/inspetor', {
    method: 'POST',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/tasks/${task.id}/inspetor`, owner: b.owner, body: { inspectorId: b.member.id }, badBody: { inspectorId: 'x' }, forbidden: b.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}', () => {
  it('deletes a task (204) and closes the gap in its column', async () => {
    const b = await boardWithRoles(t);
    const [a, mid, c] = await tasksIn(t, b.owner, b.stageIds[0]!, 3);
    const res = await t.as(b.owner).delete(`/tasks/${mid}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([a, c]);
    expect(await t.sql(sql`select id from tasks where id = ${mid}`)).toEqual([]);
    expectProblem(await t.as(b.owner).get(`/tasks/${mid}`), 404);
  });

  it('lets a member delete its own task, an editor any, but not a member another one (403)', async () => {
    const b = await boardWithRoles(t);
    const own = await b.f.task(b.member, b.stageIds[0]!);
    const others = await b.f.task(b.owner, b.stageIds[0]!);
    expectProblem(await t.as(b.member).delete(`/tasks/${others.id}`), 403, 'FORBIDDEN');
    expect((await t.as(b.member).delete(`/tasks/${own.id}`)).statusCode).toBe(204);
    const editor = await spaceMember(t, b.owner, b.space.id, 'editor');
    expect((await t.as(editor).delete(`/tasks/${others.id}`)).statusCode).toBe(204);
  });

  commonCases(t, 'DELETE /tasks/{taskId}', {
    method: 'DELETE',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const task = await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/tasks/${task.id}`, owner: b.owner, forbidden: b.member };
    },
  });
});
