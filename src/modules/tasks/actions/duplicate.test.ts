import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, columnTasks, expectHistory, expectTaskForm, spaceMember, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();

/** A task with everything a copy may take: labels, people, subtasks, a message, an inspector, a time record. */
async function richTask(b: Awaited<ReturnType<typeof boardWithRoles>>, stageId: number) {
  const org = b.owner.organizationId;
  const task = await b.f.task(b.owner, stageId, {
    name: 'Original',
    description: 'Rich text',
    color: '#112233',
    dateBegin: '2026-03-01T09:00:00.000Z',
    dateEnd: '2026-03-05T18:00:00.000Z',
    dateEndWithoutTime: '2026-03-05',
    importance: 2,
    responsibleUserId: [b.member.id],
  });
  const id = Number(task.id);
  const [label] = await t.sql<{ id: number }>(sql`insert into labels (organization_id, name, color) values (${org}, 'L', '#00FF00') returning id`);
  await t.sql(sql`insert into task_labels (organization_id, task_id, label_id) values (${org}, ${id}, ${label!.id})`);
  await t.sql(sql`insert into task_members (organization_id, task_id, user_id) values (${org}, ${id}, ${b.reader.id})`);
  await t.sql(sql`insert into subtasks (organization_id, task_id, name, "order", is_checked) values (${org}, ${id}, 'first', 0, true), (${org}, ${id}, 'second', 1, false)`);
  await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${id}, ${b.owner.id}, 'hello there')`);
  await t.sql(sql`insert into task_inspectors (organization_id, task_id, user_id) values (${org}, ${id}, ${b.owner.id})`);
  await t.sql(sql`insert into time_records (organization_id, task_id, user_id, date, hours) values (${org}, ${id}, ${b.owner.id}, '2026-03-02', 2)`);
  await t.sql(sql`update tasks set plan_time = 4, status = 3, block_reason = 'stuck' where id = ${id}`);
  return { id, labelId: Number(label!.id) };
}

describe('POST /tasks/{taskId}/duplicate', () => {
  it('copies the task right after the original, with history 20 on the copy', async () => {
    const b = await boardWithRoles(t);
    const [first] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const { id, labelId } = await richTask(b, b.stageIds[0]!);
    const [last] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const before = await columnTasks(t, b.stageIds[0]!);

    const res = await t.as(b.member).post(`/tasks/${id}/duplicate`, {});
    expect(res.statusCode).toBe(201);
    const { task, history } = res.json();
    expectTaskForm(task);
    expectHistory(history, task.id, 20);
    expect(history.userId).toBe(b.member.id);
    expect(task).toMatchObject({
      name: 'Original',
      color: '#112233',
      status: 0,
      blockReason: null,
      creatorId: b.member.id,
      dateBegin: '2026-03-01T09:00:00.000Z',
      dateEnd: '2026-03-05T18:00:00.000Z',
      dateEndWithoutTime: '2026-03-05',
      importance: 2,
      planTime: 4,
      factTime: 0,
      tags: [labelId],
      responsibleUserId: [b.member.id],
      members: [b.reader.id],
      hasDescription: true,
      hasMessages: false,
      inspectors: [],
      checklist: { items: 2, itemsChecked: 1 },
      stages: [{ stageId: b.stageIds[0], pinned: true, projectId: b.project.id }],
    });
    expect(task.list.map((s: { name: string; taskId: number }) => [s.name, s.taskId])).toEqual([['first', task.id], ['second', task.id]]);
    const idx = before.indexOf(id);
    expect(await columnTasks(t, b.stageIds[0]!)).toEqual([...before.slice(0, idx + 1), task.id, ...before.slice(idx + 1)]);
    expect([...before].sort()).toEqual([first, id, last].sort());
    const rows = await t.sql<{ type: number; taskId: number }>(sql`select type, task_id as "taskId" from task_history where id = ${history.id}`);
    expect(rows).toEqual([{ type: 20, taskId: task.id }]);
  });

  it('copies into another column, without subtasks and with messages when asked', async () => {
    const b = await boardWithRoles(t);
    const { id } = await richTask(b, b.stageIds[0]!);
    const res = await t.as(b.owner).post(`/tasks/${id}/duplicate`, { stageId: b.stageIds[1], withSubtasks: false, withMessages: true });
    expect(res.statusCode).toBe(201);
    const { task } = res.json();
    expect(task).toMatchObject({ list: [], hasMessages: true, stages: [{ stageId: b.stageIds[1], order: '0' }] });
    expect(await t.sql(sql`select text from task_messages where task_id = ${task.id}`)).toEqual([{ text: 'hello there' }]);
  });

  it('leaves out people who may not be on the target project', async () => {
    const b = await boardWithRoles(t);
    const { id } = await richTask(b, b.stageIds[0]!);
    const other = await b.f.space(b.owner, 'Other');
    const project = await b.f.project(b.owner, other.id, 'Elsewhere');
    const stage = await b.f.stage(b.owner, project.id, 'Todo');
    const res = await t.as(b.owner).post(`/tasks/${id}/duplicate`, { stageId: stage.id });
    expect(res.statusCode).toBe(201);
    expect(res.json().task).toMatchObject({ responsibleUserId: [], members: [], stages: [{ stageId: stage.id, projectId: project.id }] });
    expect(await t.sql(sql`select space_id as "spaceId" from tasks where id = ${res.json().task.id}`)).toEqual([{ spaceId: other.id }]);
  });

  it('respects the column task limit', async () => {
    const b = await boardWithRoles(t);
    const [id] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    await t.sql(sql`update stages set tasks_limit = 1 where id = ${b.stageIds[0]}`);
    const before = await t.sql(sql`select count(*)::int as n from tasks where organization_id = ${b.owner.organizationId}`);
    expectProblem(await t.as(b.owner).post(`/tasks/${id}/duplicate`, {}), 400, 'STAGE_TASKS_LIMIT');
    expect(await t.sql(sql`select count(*)::int as n from tasks where organization_id = ${b.owner.organizationId}`)).toEqual(before);
  });

  it('answers 404 for a target column of another organization', async () => {
    const b = await boardWithRoles(t);
    const [id] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const foreign = await boardWithRoles(t);
    expectProblem(await t.as(b.owner).post(`/tasks/${id}/duplicate`, { stageId: foreign.stageIds[0] }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'POST /tasks/{taskId}/duplicate', {
    method: 'POST',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      const [id] = await tasksIn(kit, b.owner, b.stageIds[0]!, 1);
      return { url: `/tasks/${id}/duplicate`, owner: b.owner, body: {}, badBody: { withSubtasks: 'yes' }, forbidden: b.reader };
    },
  });
});

describe('POST /projects/{projectId}/duplicate', () => {
  it('copies the columns and, with withTasks, the board in the same positions', async () => {
    const b = await boardWithRoles(t);
    await t.sql(sql`update stages set tasks_limit = 5, color = '#ABCDEF' where id = ${b.stageIds[1]}`);
    const { id: rich } = await richTask(b, b.stageIds[0]!);
    const [plain] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const [gone] = await tasksIn(t, b.owner, b.stageIds[1]!, 1);
    expect((await t.as(b.owner).patch(`/tasks/${gone}/archive`, { stageId: b.stageIds[1] })).statusCode).toBe(200);
    const sourceOrder = await columnTasks(t, b.stageIds[0]!);

    const res = await t.as(b.owner).post(`/projects/${b.project.id}/duplicate`, { withTasks: true });
    expect(res.statusCode).toBe(201);
    const copy = res.json();
    expect(copy).toMatchObject({ name: `${b.project.name} (copy)`, spaceId: b.space.id, projectGroupId: null, tabs: [] });
    expect(copy.id).not.toBe(b.project.id);
    expect(copy.stages.map((s: Record<string, unknown>) => [s.name, s.order, s.tasksLimit, s.color])).toEqual([
      ['Column 1', '0', 0, ''],
      ['Column 2', '1', 5, '#ABCDEF'],
    ]);
    const copied = await columnTasks(t, copy.stages[0].id);
    expect(copied).toHaveLength(2);
    expect(await columnTasks(t, copy.stages[1].id)).toEqual([]);
    const names = await t.sql<{ id: number; name: string; creatorId: number }>(
      sql`select id, name, creator_id as "creatorId" from tasks where id = any(${`{${copied.join(',')}}`}::bigint[])`,
    );
    const byId = new Map(names.map((n) => [Number(n.id), n.name]));
    const sourceNames = await t.sql<{ id: number; name: string }>(sql`select id, name from tasks where id = any(${`{${sourceOrder.join(',')}}`}::bigint[])`);
    const sourceById = new Map(sourceNames.map((n) => [Number(n.id), n.name]));
    expect(copied.map((id) => byId.get(id))).toEqual(sourceOrder.map((id) => sourceById.get(id)));
    expect(await t.sql(sql`select type, user_id as "userId" from task_history where task_id = any(${`{${copied.join(',')}}`}::bigint[])`)).toEqual([
      { type: 20, userId: b.owner.id },
      { type: 20, userId: b.owner.id },
    ]);
    const list = await t.as(b.owner).get(`/projects/${copy.id}/tasks`);
    expect(list.json().find((k: { name: string }) => k.name === 'Original')).toMatchObject({ checklist: { items: 2, itemsChecked: 1 }, responsibleUserId: [b.member.id] });
    expect([rich, plain].every((id) => sourceOrder.includes(id))).toBe(true);
  });

  it('copies columns only by default, into another space with a new name', async () => {
    const b = await boardWithRoles(t);
    await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    const other = await b.f.space(b.owner, 'Target');
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/duplicate`, { name: 'Fresh', spaceId: other.id });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Fresh', spaceId: other.id });
    expect(res.json().stages).toHaveLength(2);
    expect(await t.sql(sql`select count(*)::int as n from task_stages where project_id = ${res.json().id}`)).toEqual([{ n: 0 }]);
  });

  it('needs S:editor in the target space too (404 for a space the caller is not in)', async () => {
    const b = await boardWithRoles(t);
    const editor = await spaceMember(t, b.owner, b.space.id, 'editor');
    const other = await b.f.space(b.owner, 'Closed');
    expectProblem(await t.as(editor).post(`/projects/${b.project.id}/duplicate`, { spaceId: other.id }), 404, 'NOT_FOUND');
    await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${b.owner.organizationId}, ${other.id}, ${editor.id}, 'reader')`);
    expectProblem(await t.as(editor).post(`/projects/${b.project.id}/duplicate`, { spaceId: other.id }), 403, 'FORBIDDEN');
    expect((await t.as(editor).post(`/projects/${b.project.id}/duplicate`, {})).statusCode).toBe(201);
  });

  commonCases(t, 'POST /projects/{projectId}/duplicate', {
    method: 'POST',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      await tasksIn(kit, b.owner, b.stageIds[0]!, 1);
      return { url: `/projects/${b.project.id}/duplicate`, owner: b.owner, body: { withTasks: true }, badBody: { name: '' }, forbidden: b.member };
    },
  });
});
