import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { EVENT_TYPES } from '../../platform/event-types.js';
import { eventPayloadSchemas } from './events.catalogue.js';
import { changeLog, withoutTaskEvents } from './emitted.fixtures.js';
import { reglamentFactories } from '../reglaments/reglaments.fixtures.js';

// The change log of the board's modules: every committed change appends its event, in its transaction.
const t = useTestApp();
const f = factories(t);
const newEvents = changeLog(t);

async function boardWithTask() {
  const board = await f.board(2);
  const task = await f.task(board.owner, board.stages[0]!.id);
  const org = board.owner.organizationId;
  await newEvents(org);
  return { ...board, task, org, where: { spaceId: board.space.id, projectId: board.project.id } };
}

describe('events of the task chat', () => {
  it('announces sent, edited, pinned, reacted and deleted messages to the task', async () => {
    const { owner, task, org, where } = await boardWithTask();
    const as = t.as(owner);
    const at = { ...where, taskId: task.id, actorId: owner.id };

    const message = (await as.post(`/tasks/${task.id}/messages`, { text: 'hello' })).json();
    await as.patch(`/tasks/${task.id}/messages/${message.id}/text`, { text: 'hello again' });
    await as.patch(`/tasks/${task.id}/messages/${message.id}/pinned`, { pinned: true });
    await as.patch(`/tasks/${task.id}/messages/${message.id}/pinned`, { pinned: true });
    await as.post(`/tasks/${task.id}/messages/${message.id}/reactions`, { emoji: '👍' });
    await as.delete(`/tasks/${task.id}/messages/${message.id}/reactions/${encodeURIComponent('👍')}`);
    await as.delete(`/tasks/${task.id}/messages/${message.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual([
      'message.created',
      'message.updated',
      'message.pinned', // pinning again changed nothing: no second event
      'message.reaction.added',
      'message.reaction.removed',
      'message.deleted',
    ]);
    for (const e of events) expect(e).toMatchObject(at);
    expect(events[0]!.payload).toEqual(message);
    expect(events[1]!.payload).toMatchObject({ id: message.id, text: 'hello again' });
    expect(events[3]!.payload.reactions).toEqual([{ emoji: '👍', count: 1, userIds: [owner.id] }]);
    expect(events[4]!.payload.reactions).toEqual([]);
    expect(events[5]!.payload).toEqual({ id: message.id });
  });
});

describe('events of time tracking', () => {
  it('announces time records and timers, besides the task.updated of the spent time', async () => {
    const { owner, task, org, where } = await boardWithTask();
    const as = t.as(owner);
    const at = { ...where, taskId: task.id, actorId: owner.id };

    const created = (await as.post('/time-records', { taskId: task.id, hours: 1.5, date: '2024-05-01' })).json();
    await as.patch(`/time-records/${created.record.id}`, { hours: 2 });
    await as.delete(`/time-records/${created.record.id}`);
    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual(['task.updated', 'time-record.created', 'task.updated', 'time-record.updated', 'time-record.deleted', 'task.updated']);
    const records = withoutTaskEvents(events);
    for (const e of records) expect(e).toMatchObject(at);
    expect(records[0]!.payload).toEqual(created.record);
    expect(records[1]!.payload).toMatchObject({ id: created.record.id, hours: 2 });
    expect(records[2]!.payload).toEqual({ id: created.record.id });

    const timer = (await as.post('/timers', { taskId: task.id })).json();
    await as.post('/timers', { taskId: task.id }); // the running timer is answered as it is
    const stopped = (await as.patch(`/timers/${timer.id}/stop`, {})).json();
    const timing = withoutTaskEvents(await newEvents(org));
    expect(timing.map((e) => e.type)).toEqual(['timer.started', 'timer.stopped', 'time-record.created']);
    for (const e of timing) expect(e).toMatchObject(at);
    expect(timing[0]!.payload).toMatchObject({ id: timer.id, taskId: task.id, stoppedAt: null });
    expect(timing[1]!.payload).toEqual(stopped.timer);
    expect(timing[2]!.payload).toEqual(stopped.record);
  });
});

describe('events of columns', () => {
  it('announces created, changed, moved, sorted and deleted columns to the project and its space', async () => {
    const { owner, project, stages, org, where } = await boardWithTask();
    const as = t.as(owner);
    const at = { ...where, taskId: null, actorId: owner.id };

    const third = (await as.post(`/projects/${project.id}/stages`, { name: 'Third', order: 2, tasks: [] })).json();
    await as.patch(`/projects/${project.id}/stages/${third.id}/name`, { name: 'Done' });
    await as.patch(`/projects/${project.id}/stages/${third.id}/color`, { color: '#00ff00' });
    await as.patch(`/projects/${project.id}/stages/${third.id}/order`, { order: 0 });
    await as.patch(`/projects/${project.id}/stages/order`, { ids: [stages[0]!.id, stages[1]!.id, third.id] });
    await as.patch(`/projects/${project.id}/stages/${stages[0]!.id}/sort`, { by: 'createdAt' });
    await as.delete(`/projects/${project.id}/stages/${third.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual(['stage.created', 'stage.updated', 'stage.updated', 'stage.moved', 'stage.moved', 'stage.sorted', 'stage.deleted']);
    for (const e of events) expect(e).toMatchObject(at);
    expect(events[0]!.payload).toEqual(third);
    expect(events[1]!.payload).toMatchObject({ id: third.id, name: 'Done', order: '2' });
    // The colour route answers another form; the event keeps the Stage form.
    expect(events[2]!.payload).toMatchObject({ id: third.id, color: '#00ff00', order: '2' });
    expect(events[3]!.payload.stages.map((s: { id: number }) => s.id)).toEqual([third.id, stages[0]!.id, stages[1]!.id]);
    expect(events[4]!.payload).toMatchObject({ projectId: project.id, stages: [{ id: stages[0]!.id, order: '0' }, { id: stages[1]!.id }, { id: third.id }] });
    expect(events[5]!.payload).toMatchObject({ stageId: stages[0]!.id, projectId: project.id, by: 'createdAt', direction: 'asc', tasks: [{ order: '0' }] });
    expect(events[6]!.payload).toEqual({ id: third.id });
  });
});

describe('events of projects and their tables', () => {
  it('announces project changes, links and the trash to the project and its space', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    const space = await f.space(owner);
    const other = await f.space(owner, 'Other');
    await newEvents(org);
    const as = t.as(owner);

    const project = await f.project(owner, space.id);
    await as.patch(`/projects/${project.id}/name`, { name: 'Renamed' });
    await as.patch(`/projects/${project.id}/favorite`, { favorite: true }); // the caller's own: not announced
    const linked = (await as.post(`/projects/${project.id}/spaces`, { spaceId: other.id })).json();
    await as.delete(`/projects/${project.id}/spaces/${other.id}`);
    await as.patch(`/projects/${project.id}/documentation/content`, { content: '# Readme' });
    await as.delete(`/projects/${project.id}`);
    await as.patch(`/projects/${project.id}/restore`);

    const events = await newEvents(org);
    expect(events.map((e) => [e.type, e.spaceId])).toEqual([
      ['project.created', space.id],
      ['project.updated', space.id],
      ['project.linked', other.id],
      ['project.unlinked', other.id],
      ['project.updated', space.id],
      ['project.deleted', space.id],
      ['project.restored', space.id],
    ]);
    for (const e of events) expect(e).toMatchObject({ projectId: project.id, taskId: null, actorId: owner.id });
    expect(events[0]!.payload).toEqual(project);
    expect(events[1]!.payload).toMatchObject({ id: project.id, name: 'Renamed' });
    expect(events[2]!.payload).toEqual(linked);
    expect(events[3]!.payload).toEqual({ id: project.id, spaceId: other.id });
    expect(events[4]!.payload).toMatchObject({ id: project.id, documentation: { projectId: project.id, content: '# Readme', version: 1 } });
    expect(events[5]!.payload).toEqual({ id: project.id });
    expect(events[6]!.payload).toMatchObject({ id: project.id, deletedAt: null, stages: [] });
  });

  it('announces project group changes as space.updated with the groups, without the invite link', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'member' });
    await newEvents(owner.organizationId);
    const group = (await t.as(owner).post(`/spaces/${space.id}/project-groups`, { name: 'Clients' })).json();
    const [event, ...rest] = await newEvents(owner.organizationId);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ type: 'space.updated', spaceId: space.id, projectId: null, actorId: owner.id });
    expect(event!.payload).toMatchObject({ id: space.id, projectGroups: [{ id: group.id, name: 'Clients' }], inviteLink: null });
  });

  it('announces every table change as table.updated with the column or row', async () => {
    const { owner, project, org, where } = await boardWithTask();
    const as = t.as(owner);
    const column = (await as.post(`/projects/${project.id}/table-columns`, { name: 'Note', type: 'text' })).json();
    await as.patch(`/projects/${project.id}/table-columns/${column.id}`, { name: 'Notes' });
    const row = (await as.post(`/projects/${project.id}/table-rows`, { cells: { [column.id]: 'a' } })).json();
    await as.patch(`/projects/${project.id}/table-rows/${row.id}`, { cells: { [column.id]: 'b' } });
    await as.delete(`/projects/${project.id}/table-rows/${row.id}`);
    await as.delete(`/projects/${project.id}/table-columns/${column.id}`);

    const events = await newEvents(org);
    for (const e of events) expect(e).toMatchObject({ type: 'table.updated', ...where, taskId: null, actorId: owner.id });
    expect(events.map((e) => [e.payload.change, e.payload.id])).toEqual([
      ['column.created', column.id],
      ['column.updated', column.id],
      ['row.created', row.id],
      ['row.updated', row.id],
      ['row.deleted', row.id],
      ['column.deleted', column.id],
    ]);
    expect(events[0]!.payload.column).toEqual(column);
    expect(events[3]!.payload.row.cells).toEqual({ [column.id]: 'b' });
  });
});

describe('the payload catalogue', () => {
  it('has a schema for exactly the known event types (each test above checks payloads against it)', () => {
    expect(Object.keys(eventPayloadSchemas()).sort()).toEqual([...EVENT_TYPES].sort());
  });
});

describe('refused requests', () => {
  it('append no event: a 403 and a 400 leave the change log as it was', async () => {
    const { owner, space, project, task, org } = await boardWithTask();
    const reader = await f.spaceMember(owner, space.id, 'reader');
    const count = async () => Number((await t.sql<{ n: number }>(sql`select count(*)::int as n from events where organization_id = ${org}`))[0]!.n);
    const before = await count();

    expect((await t.as(reader).post(`/projects/${project.id}/stages`, { name: 'X', order: 0, tasks: [] })).statusCode).toBe(403);
    expect((await t.as(reader).patch(`/projects/${project.id}/name`, { name: 'X' })).statusCode).toBe(403);
    expect((await t.as(owner).post('/time-records', { taskId: task.id, hours: 99, date: '2024-05-01' })).statusCode).toBe(400);
    expect((await t.as(owner).post(`/tasks/${task.id}/messages`, { text: '   ' })).statusCode).toBe(400);

    expect(await count()).toBe(before);
  });
});

describe('events of tasks moved by column operations and across projects', () => {
  it('announces task.moved for each task a column operation moves', async () => {
    const { owner, project, stages, task, org, where } = await boardWithTask();
    const as = t.as(owner);
    const other = await f.task(owner, stages[0]!.id);
    await newEvents(org);

    const res = await as.post(`/projects/${project.id}/stages`, { name: 'Third', order: 2, tasks: [task.id, other.id] });
    expect(res.statusCode).toBe(201);
    const third = res.json();
    const created = await newEvents(org);
    expect(created.map((e) => [e.type, e.taskId])).toEqual([['task.moved', task.id], ['task.moved', other.id], ['stage.created', null]]);
    for (const e of created) expect(e).toMatchObject({ ...where, actorId: owner.id });
    expect(created[0]!.payload).toMatchObject({ task: { id: task.id }, history: { type: 3, state: 'moved to column "Third"' }, changes: ['stages'] });

    expect((await as.delete(`/projects/${project.id}/stages/${third.id}?moveTasksTo=${stages[1]!.id}`)).statusCode).toBe(204);
    expect((await newEvents(org)).map((e) => [e.type, e.taskId])).toEqual([['task.moved', task.id], ['task.moved', other.id], ['stage.deleted', null]]);
  });

  it('tells the board a task left for another project with task.left, and the new board with task.moved', async () => {
    const { owner, space, project, stages, task, org } = await boardWithTask();
    const as = t.as(owner);
    const elsewhere = await f.space(owner, 'Elsewhere');
    const target = await f.project(owner, elsewhere.id, 'Target');
    const column = await f.stage(owner, target.id, 'In');
    await newEvents(org);

    expect((await as.post('/tasks/move', { taskIds: [task.id], stageId: column.id })).statusCode).toBe(200);
    const moved = await newEvents(org);
    expect(moved.map((e) => [e.type, e.spaceId, e.projectId])).toEqual([
      ['task.moved', elsewhere.id, target.id],
      ['task.left', space.id, project.id],
    ]);
    expect(moved[1]).toMatchObject({ taskId: task.id, actorId: owner.id, payload: { id: task.id, stageId: stages[0]!.id } });

    // Within a project nothing is left.
    const second = await f.stage(owner, target.id, 'Next', 1);
    await newEvents(org);
    await as.post('/tasks/move', { taskIds: [task.id], stageId: second.id });
    expect((await newEvents(org)).map((e) => e.type)).toEqual(['task.moved']);

    // A restore into another project's column leaves the project it was archived in.
    await as.patch(`/tasks/${task.id}/archive`, { stageId: second.id });
    await newEvents(org);
    expect((await as.patch(`/tasks/${task.id}/restore`, { stageId: stages[1]!.id })).statusCode).toBe(200);
    expect((await newEvents(org)).map((e) => [e.type, e.projectId, e.payload.stageId ?? null])).toEqual([
      ['task.restored', project.id, null],
      ['task.left', target.id, second.id],
    ]);

    // A column moved to another project takes its tasks: task.moved to the new board, task.left to the old.
    const res = await as.patch(`/projects/${project.id}/stages/${stages[1]!.id}/project`, { projectId: target.id });
    expect(res.statusCode).toBe(200);
    expect((await newEvents(org)).map((e) => [e.type, e.projectId])).toEqual([
      ['task.moved', target.id],
      ['task.left', project.id],
      ['stage.deleted', project.id],
      ['stage.created', target.id],
    ]);
  });
});

describe('events of changes that reach tasks as a side effect', () => {
  it('a deleted label records history 10 on every task that carried it, each announced', async () => {
    const { owner, stages, task, org } = await boardWithTask();
    const as = t.as(owner);
    const other = await f.task(owner, stages[0]!.id);
    const label = (await as.post('/labels', { name: 'urgent', color: '#FF0000' })).json().id as number;
    for (const id of [task.id, other.id]) await as.post(`/tasks/${id}/labels`, { labelId: label });
    await newEvents(org);
    expect((await as.delete(`/labels/${label}`)).statusCode).toBe(204);
    const events = await newEvents(org);
    expect(events.map((e) => [e.type, e.taskId])).toEqual([['task.updated', task.id], ['task.updated', other.id], ['label.deleted', null]]);
    expect(events[0]!.payload).toMatchObject({ task: { tags: [] }, history: { type: 10, state: 'label "urgent" was deleted' }, changes: ['tags'] });
  });

  it('a deleted task is announced to the tasks linked to it through subtasks; a deleted subtask to its child', async () => {
    const { owner, stages, task, org } = await boardWithTask();
    const as = t.as(owner);
    const parent = (await as.post(`/tasks/${task.id}/subtasks`, { name: 'Part one' })).json().task;
    const child = (await as.post(`/tasks/${task.id}/subtasks/${parent.list[0].id}/child-task`, { stageId: stages[1]!.id })).json().task;
    const second = (await as.post(`/tasks/${task.id}/subtasks`, { name: 'Part two' })).json().task.list[1];
    const other = (await as.post(`/tasks/${task.id}/subtasks/${second.id}/child-task`, { stageId: stages[1]!.id })).json().task;
    await newEvents(org);

    expect((await as.delete(`/tasks/${task.id}/subtasks/${second.id}`)).statusCode).toBe(200);
    const unlinked = await newEvents(org);
    expect(unlinked.map((e) => [e.type, e.taskId])).toEqual([['task.updated', task.id], ['task.updated', other.id]]);
    expect(unlinked[1]!.payload).toMatchObject({ task: { parentTaskIds: [] }, history: { type: 11 } });

    // The child is deleted: the parent's subtask no longer links it.
    expect((await as.delete(`/tasks/${child.id}`)).statusCode).toBe(204);
    const gone = await newEvents(org);
    expect(gone.map((e) => [e.type, e.taskId])).toEqual([['task.deleted', child.id], ['task.updated', task.id]]);
    expect(gone[1]!.payload).toMatchObject({ task: { list: [{ childTaskId: null }] }, history: { state: `linked task "${child.name}" was deleted` } });
  });

  it('a duplicated project is announced once, with its columns, after they were copied', async () => {
    const { owner, project, org } = await boardWithTask();
    await newEvents(org);
    const copy = (await t.as(owner).post(`/projects/${project.id}/duplicate`, { withTasks: true })).json();
    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual(['task.duplicated', 'project.created']);
    expect(events[1]!.payload.stages.map((s: { id: number }) => s.id)).toEqual(copy.stages.map((s: { id: number }) => s.id));
    expect(events[1]!.payload.stages).toHaveLength(2);
  });
  it('a deleted group announces the projects and reglaments it held, in their new places', async () => {
    const { owner, space, project, org } = await boardWithTask();
    const as = t.as(owner);
    const group = (await as.post(`/spaces/${space.id}/project-groups`, { name: 'Old' })).json();
    expect((await as.patch(`/projects/${project.id}/group`, { projectGroupId: group.id })).statusCode).toBe(200);
    const r = reglamentFactories(t);
    const [from, to] = [await r.group(owner, space.id, 'From'), await r.group(owner, space.id, 'To')];
    const reglament = await r.reglament(owner, from.id, { name: 'Rules' });
    await newEvents(org);

    expect((await as.delete(`/spaces/${space.id}/project-groups/${group.id}`)).statusCode).toBe(204);
    const ungrouped = await newEvents(org);
    expect(ungrouped.map((e) => e.type)).toEqual(['space.updated', 'project.updated']);
    expect(ungrouped[1]!.payload).toMatchObject({ id: project.id, projectGroupId: null });

    expect((await as.delete(`/spaces/${space.id}/reglament-groups/${from.id}?moveTo=${to.id}`)).statusCode).toBe(204);
    const moved = await newEvents(org);
    expect(moved.map((e) => e.type)).toEqual(['space.updated', 'reglament.updated']);
    expect(moved[1]!.payload).toMatchObject({ id: reglament.id, reglamentColumnId: to.id });
  });
});
