import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { reglamentFactories } from '../reglaments/reglaments.fixtures.js';
import { eventually, listen, SseClient, WsClient, type Envelope } from './realtime.fixtures.js';

const t = useTestApp({ realtimeHeartbeatMs: 200 });
const f = factories(t);
let host: string;

beforeAll(async () => {
  host = await listen(t.app);
});
afterAll(async () => {
  await t.app.realtime.idle();
});

const idsOf = (events: Envelope[]) => events.map((e) => e.id);

/** Every event of the organization after `after`, from the log itself. */
async function logged(org: number, after: number) {
  return t.sql<{ id: number; type: string; projectId: number | null }>(
    sql`select id::int as id, type, project_id::int as "projectId" from events where organization_id = ${org} and id > ${after} order by id`,
  );
}

async function board() {
  const { owner, space, project, stages } = await f.board(2);
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const reader = await f.spaceMember(owner, space.id, 'reader');
  const outsider = await t.member(owner, 'member');
  return { owner, space, project, stages, editor, reader, outsider };
}

async function wsFor(user: TestUser, how: 'header' | 'frame' = 'header') {
  const client = await WsClient.open(host, how === 'header' ? user.headers : {});
  if (how === 'frame') client.send({ type: 'auth', session: user.session });
  await client.ready();
  return client;
}

describe('real-time events: WebSocket and SSE', () => {
  it('gives each client exactly the committed changes it may read, in order, once; resumes without loss', async () => {
    const { owner, space, project, stages, editor, reader, outsider } = await board();
    const [head] = await t.sql<{ lastId: number }>(sql`select last_id::int as "lastId" from event_counters where organization_id = ${owner.organizationId}`);
    const start = head!.lastId;

    const a = await wsFor(owner, 'header');
    const b = await wsFor(reader, 'frame');
    const c = await wsFor(outsider, 'header');
    for (const client of [a, b, c]) await client.request({ type: 'subscribe' }, 'subscribed');
    const sse = await SseClient.open(host, `/events?projectIds=${project.id}`, { authorization: `Bearer ${owner.session}` });
    expect(sse.status).toBe(200);

    // Another user works on the board.
    const as = t.as(editor);
    const t1 = await f.task(editor, stages[0]!.id, { name: 'one' });
    const t2 = await f.task(editor, stages[0]!.id, { name: 'two' });
    expect((await as.post('/tasks/move', { taskIds: [t1.id], stageId: stages[1]!.id, order: 0 })).statusCode).toBe(200);
    expect((await as.post(`/tasks/${t2.id}/messages`, { text: 'hello' })).statusCode).toBe(201);
    expect((await as.patch(`/tasks/${t2.id}/archive`, { stageId: stages[0]!.id })).statusCode).toBe(200);

    const all = await logged(owner.organizationId, start);
    const onBoard = all.filter((e) => e.projectId === project.id);
    expect(onBoard.map((e) => e.type)).toEqual(expect.arrayContaining(['task.created', 'task.moved', 'task.archived']));

    // Space members and the owner get every board event; the outsider none of them.
    // (`closed` shown too: a client cut off explains a short list.)
    await eventually(() => expect({ ids: idsOf(a.events), closed: a.closed }).toEqual({ ids: all.map((e) => e.id), closed: null }));
    await eventually(() => expect({ ids: idsOf(b.events), closed: b.closed }).toEqual({ ids: all.map((e) => e.id), closed: null }));
    await eventually(() => expect(idsOf(sse.events)).toEqual(onBoard.map((e) => e.id)));
    await t.app.realtime.idle();
    expect(c.events.filter((e) => e.projectId === project.id)).toEqual([]);
    // Envelopes carry the task form for task events.
    const created = a.events.find((e) => e.type === 'task.created')!;
    expect(created).toMatchObject({ organizationId: owner.organizationId, spaceId: space.id, projectId: project.id, taskId: t1.id, actorId: editor.id });
    expect((created.payload as { task: { id: number; name: string } }).task).toMatchObject({ id: t1.id, name: 'one' });
    expect(created.payload).toMatchObject({ history: { type: 0, taskId: t1.id }, changes: [] });

    // b disconnects; more work happens; b reconnects and resumes from its last id: nothing missed, nothing twice.
    const lastSeen = b.events.at(-1)!.id;
    b.close();
    await f.task(editor, stages[1]!.id, { name: 'three' });
    expect((await as.patch(`/tasks/${t1.id}/name`, { name: 'one renamed' })).statusCode).toBe(200);
    const b2 = await wsFor(reader, 'frame');
    await b2.request({ type: 'subscribe', projectIds: [project.id] }, 'subscribed');
    await b2.request({ type: 'resume', lastEventId: lastSeen }, 'resumed');
    const missed = (await logged(owner.organizationId, lastSeen)).filter((e) => e.projectId === project.id);
    expect(missed.length).toBeGreaterThanOrEqual(2);
    await eventually(() => expect(idsOf(b2.events)).toEqual(missed.map((e) => e.id)));
    const everything = (await logged(owner.organizationId, start)).map((e) => e.id);
    await eventually(() => expect(idsOf(a.events)).toEqual(everything));

    for (const client of [a, b2, c]) client.close();
    sse.close();
  });

  it('stops sending a space’s events the moment a member is removed from it', async () => {
    const { owner, space, stages, editor, reader } = await board();
    const client = await wsFor(reader);
    await client.request({ type: 'subscribe', types: ['task.*'] }, 'subscribed');
    await f.task(editor, stages[0]!.id, { name: 'seen' });
    await eventually(() => expect(client.events.map((e) => e.type)).toEqual(['task.created']));
    expect((await t.as(owner).delete(`/spaces/${space.id}/members/${reader.id}`)).statusCode).toBeLessThan(300);
    await f.task(editor, stages[0]!.id, { name: 'unseen' });
    await t.app.realtime.idle();
    await new Promise((r) => setTimeout(r, 100));
    await t.app.realtime.idle();
    expect(client.events.map((e) => (e.payload as { task: { name: string } }).task.name)).toEqual(['seen']);
    client.close();
  });

  it('filters by subscription: types, tasks; unsubscribe stops delivery', async () => {
    const { owner, stages, editor } = await board();
    const t1 = await f.task(editor, stages[0]!.id, { name: 'watched' });
    const t2 = await f.task(editor, stages[0]!.id, { name: 'other' });
    const client = await wsFor(owner);
    const sub = await client.request({ type: 'subscribe', taskIds: [t1.id], types: ['task.updated'] }, 'subscribed');
    await t.as(editor).patch(`/tasks/${t2.id}/name`, { name: 'x' });
    await t.as(editor).patch(`/tasks/${t1.id}/name`, { name: 'y' });
    await t.as(editor).post('/tasks/move', { taskIds: [t1.id], stageId: stages[1]!.id, order: 0 });
    await eventually(() => expect(client.events.map((e) => [e.type, e.taskId])).toEqual([['task.updated', t1.id]]));
    expect(client.events[0]!.payload).toMatchObject({ changes: ['name'] });
    await client.request({ type: 'unsubscribe', subscriptionId: sub.subscriptionId }, 'unsubscribed');
    await t.as(editor).patch(`/tasks/${t1.id}/name`, { name: 'z' });
    await t.app.realtime.idle();
    expect(client.events).toHaveLength(1);
    client.close();
  });

  it('sends resync for a resume point past the replay window, or one the log never had', async () => {
    const { owner, stages, editor } = await board();
    await f.task(editor, stages[0]!.id);
    const client = await wsFor(owner);
    await client.request({ type: 'subscribe' }, 'subscribed');
    const from = client.frames.length;
    const resync = await client.request({ type: 'resume', lastEventId: 999_999 }, 'resync');
    await client.request({ type: 'ping' }, 'pong');
    // resync alone: no `resumed` that would say the stale point was honoured.
    expect(client.frames.slice(from).map((fr) => fr.type)).toEqual(['resync', 'pong']);
    const [head] = await t.sql<{ lastId: number }>(sql`select last_id::int as "lastId" from event_counters where organization_id = ${owner.organizationId}`);
    expect(resync).toEqual({ type: 'resync', lastEventId: head!.lastId });
    // Age the log beyond the window: resuming from before it must not pretend to be complete.
    await t.sql(sql`update events set at = now() - interval '1 hour' where organization_id = ${owner.organizationId}`);
    const again = await client.request({ type: 'resume', lastEventId: 0 }, 'resync');
    expect(again).toEqual({ type: 'resync', lastEventId: head!.lastId });
    client.close();
  });

  it('authenticates by header or first frame only: bad, missing and late credentials are closed with 4401', async () => {
    const { owner } = await board();
    const bad = await WsClient.open(host, { authorization: 'Bearer wms_nope' });
    await eventually(() => expect(bad.closed?.code).toBe(4401));
    const frame = await WsClient.open(host);
    frame.send({ type: 'subscribe' });
    await eventually(() => expect(frame.closed?.code).toBe(4401));
    const wrong = await WsClient.open(host);
    wrong.send({ type: 'auth', session: 'wms_wrong' });
    await eventually(() => expect(wrong.closed?.code).toBe(4401));
    // A revoked session is cut off (at the next sweep or event) even with nothing happening.
    const client = await wsFor(owner);
    expect((await t.as(owner).post('/auth/logout')).statusCode).toBeLessThan(300);
    await eventually(() => expect(client.closed?.code).toBe(4401));
  });

  it('answers bad frames with an error frame and keeps the connection', async () => {
    const { owner } = await board();
    const client = await wsFor(owner);
    client.socket.send('not json');
    client.send({ type: 'subscribe', types: ['no.such.type'] });
    client.send({ type: 'subscribe', spaceIds: ['x'] });
    await eventually(() => expect(client.frames.filter((fr) => fr.type === 'error')).toHaveLength(3));
    expect(client.frames.filter((fr) => fr.type === 'error').map((fr) => fr.code)).toEqual(['VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);
    expect(await client.request({ type: 'ping' }, 'pong')).toEqual({ type: 'pong' });
    client.close();
  });

  it('SSE: 401 without a credential, 400 for an unknown type, resumes from Last-Event-ID', async () => {
    const { owner, stages, editor } = await board();
    expectProblem(await t.as(null).get('/events'), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(owner).get('/events?types=bogus'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(owner).get('/events?spaceIds=abc'), 400, 'VALIDATION_FAILED');
    const first = await f.task(editor, stages[0]!.id, { name: 'before' });
    const [head] = await t.sql<{ lastId: number }>(sql`select last_id::int as "lastId" from event_counters where organization_id = ${owner.organizationId}`);
    await t.as(editor).patch(`/tasks/${first.id}/name`, { name: 'after' });
    const sse = await SseClient.open(host, '/events', { ...owner.headers, 'last-event-id': String(head!.lastId) });
    await eventually(() => expect(sse.events.map((e) => e.type)).toEqual(['task.updated']));
    sse.close();
  });

  it('keeps a draft reglament’s events from readers until it is published; editors see them', async () => {
    const { owner, space, editor, reader } = await board();
    const r = reglamentFactories(t);
    const group = await r.group(owner, space.id);
    const readerClient = await wsFor(reader);
    const editorClient = await wsFor(editor);
    for (const c of [readerClient, editorClient]) await c.request({ type: 'subscribe', types: ['reglament.*'] }, 'subscribed');
    const draft = await r.reglament(owner, group.id, { draft: true, name: 'Secret plan' });
    await r.question(owner, draft.id, 'Draft question?');
    await eventually(() => expect(editorClient.events.map((e) => e.type)).toEqual(['reglament.created', 'reglament.question.created']));
    await t.app.realtime.idle();
    expect(readerClient.events).toEqual([]);
    const [before] = await t.sql<{ id: number }>(
      sql`select min(id)::int - 1 as id from events where organization_id = ${owner.organizationId} and type = 'reglament.created'`,
    );
    expect((await t.as(owner).patch(`/reglaments/${draft.id}/publish`)).statusCode).toBe(200);
    await eventually(() => expect(readerClient.events.map((e) => e.type)).toEqual(['reglament.published']));
    // Published now, yet what was written while it was a draft stays for editors: a reader resuming
    // from before the draft existed gets the publication only.
    const late = await wsFor(reader);
    await late.request({ type: 'subscribe', types: ['reglament.*'] }, 'subscribed');
    await late.request({ type: 'resume', lastEventId: before!.id }, 'resumed');
    await eventually(() => expect(late.events.map((e) => e.type)).toEqual(['reglament.published']));
    for (const c of [readerClient, editorClient, late]) c.close();
  });

  it('tells members of a deleted space, and a removed member, although they are no longer in it', async () => {
    const { owner, space, reader } = await board();
    const client = await wsFor(reader);
    await client.request({ type: 'subscribe', types: ['space.*'] }, 'subscribed');
    expect((await t.as(owner).delete(`/spaces/${space.id}/members/${reader.id}`)).statusCode).toBeLessThan(300);
    await eventually(() => expect(client.events.map((e) => [e.type, (e.payload as { userId?: number }).userId])).toEqual([['space.member.removed', reader.id]]));
    const other = await f.space(owner, 'Doomed');
    const member = await f.spaceMember(owner, other.id, 'member');
    const watcher = await wsFor(member);
    await watcher.request({ type: 'subscribe', types: ['space.deleted'] }, 'subscribed');
    expect((await t.as(owner).delete(`/spaces/${other.id}`)).statusCode).toBeLessThan(300);
    await eventually(() => expect(watcher.events.map((e) => [e.type, e.payload])).toEqual([['space.deleted', { id: other.id }]]));
    client.close();
    watcher.close();
  });

  it('tells the old board a task left for a space its reader cannot read, without showing where it went', async () => {
    const { owner, project, stages, editor, reader } = await board();
    const task = await f.task(editor, stages[0]!.id, { name: 'leaving' });
    const elsewhere = await f.space(owner, 'Elsewhere');
    const target = await f.project(owner, elsewhere.id, 'Target');
    const column = await f.stage(owner, target.id, 'In');
    const client = await wsFor(reader);
    await client.request({ type: 'subscribe', projectIds: [project.id] }, 'subscribed');
    const watcher = await wsFor(owner);
    await watcher.request({ type: 'subscribe', types: ['task.*'] }, 'subscribed');
    expect((await t.as(owner).post('/tasks/move', { taskIds: [task.id], stageId: column.id })).statusCode).toBe(200);
    await eventually(() => expect(watcher.events.map((e) => e.type)).toEqual(['task.moved', 'task.left']));
    await eventually(() => expect(client.events.map((e) => [e.type, e.taskId, e.projectId, e.payload])).toEqual([
      ['task.left', task.id, project.id, { id: task.id, stageId: stages[0]!.id }],
    ]));
    client.close();
    watcher.close();
  });

  it('a subscription to a space gets the events of a project linked into it', async () => {
    const { owner, project, stages, editor } = await board();
    const other = await f.space(owner, 'Linked into');
    const member = await f.spaceMember(owner, other.id, 'member');
    expect((await t.as(owner).post(`/projects/${project.id}/spaces`, { spaceId: other.id })).statusCode).toBe(201);
    const client = await wsFor(member);
    await client.request({ type: 'subscribe', spaceIds: [other.id], types: ['task.*'] }, 'subscribed');
    const task = await f.task(editor, stages[0]!.id, { name: 'seen through the link' });
    await eventually(() => expect(client.events.map((e) => [e.type, e.taskId, e.projectId])).toEqual([['task.created', task.id, project.id]]));
    client.close();
  });

  it('sends a reglament’s events to the readers of every space showing it, and to a space subscription there', async () => {
    const { owner, space } = await board();
    const r = reglamentFactories(t);
    const group = await r.group(owner, space.id);
    const reglament = await r.reglament(owner, group.id, { name: 'Shared rules' });
    const second = await f.space(owner, 'Second');
    await r.group(owner, second.id, 'Main');
    const there = await f.spaceMember(owner, second.id, 'reader');
    const third = await f.space(owner, 'Third');
    const elsewhere = await f.spaceMember(owner, third.id, 'reader');
    const client = await wsFor(there);
    const outsider = await wsFor(elsewhere);
    await client.request({ type: 'subscribe', spaceIds: [second.id], types: ['reglament.*'] }, 'subscribed');
    await outsider.request({ type: 'subscribe', types: ['reglament.*'] }, 'subscribed');
    expect((await t.as(owner).post(`/reglaments/${reglament.id}/spaces`, { spaceId: second.id })).statusCode).toBe(201);
    expect((await t.as(owner).patch(`/reglaments/${reglament.id}/name`, { name: 'Seen there' })).statusCode).toBe(200);
    await eventually(() => expect(client.events.at(-1)).toMatchObject({ type: 'reglament.updated', spaceId: space.id, payload: { name: 'Seen there' } }));
    await t.app.realtime.idle();
    expect(outsider.events).toEqual([]);
    client.close();
    outsider.close();
  });

  it('tells the readers of other spaces showing a project or reglament when it is deleted, filtered by those spaces too', async () => {
    const { owner, space, project } = await board();
    const r = reglamentFactories(t);
    const reglament = await r.reglament(owner, (await r.group(owner, space.id)).id, { name: 'Rules' });
    const second = await f.space(owner, 'Second');
    await r.group(owner, second.id, 'Main');
    expect((await t.as(owner).post(`/projects/${project.id}/spaces`, { spaceId: second.id })).statusCode).toBe(201);
    expect((await t.as(owner).post(`/reglaments/${reglament.id}/spaces`, { spaceId: second.id })).statusCode).toBe(201);
    const there = await f.spaceMember(owner, second.id, 'reader');
    const client = await wsFor(there);
    await client.request({ type: 'subscribe', spaceIds: [second.id], types: ['project.deleted', 'reglament.deleted'] }, 'subscribed');
    expect((await t.as(owner).delete(`/projects/${project.id}`)).statusCode).toBe(204);
    expect((await t.as(owner).delete(`/reglaments/${reglament.id}`)).statusCode).toBe(204);
    await eventually(() =>
      expect(client.events.map((e) => [e.type, e.payload])).toEqual([
        ['project.deleted', { id: project.id }],
        ['reglament.deleted', { id: reglament.id }],
      ]),
    );
    client.close();
  });

  it('disconnects a client that does not read (back-pressure), never buffering without bound', async () => {
    const { owner, stages, editor } = await board();
    const client = await wsFor(owner);
    await client.request({ type: 'subscribe' }, 'subscribed');
    // Pretend the socket has a full send buffer: the hub must drop it, not queue more.
    const sockets = [...(t.app.websocketServer.clients as Set<{ bufferedAmount: number }>)];
    for (const s of sockets) Object.defineProperty(s, 'bufferedAmount', { get: () => 1 << 30 });
    await f.task(editor, stages[0]!.id);
    await eventually(() => expect(client.closed).not.toBeNull());
  });
});
