import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { runJob } from '../../platform/jobs.js';
import type { Queryable } from '../../db/client.js';
import type { RecordedEvent } from '../../platform/events.js';
import { DUE_JOB, organizationsOwingDueNotices } from './notifications.due.js';
import { notificationPipeline } from './notifications.pipeline.js';
import { taskCandidates } from './notifications.rules.js';
import { notificationKit } from './notifications.fixtures.js';

const t = useTestApp();
const k = notificationKit(t);

describe('notification pipeline', () => {
  it('tells a new assignee once, in the same transaction, and never the actor', async () => {
    const { owner, member, task, note } = await k.world();
    expect(note).toMatchObject({ type: 'task.assigned', taskId: task.id, actorId: member.id, read: false, archived: false });
    expect(note.text).toContain('Fix the roof');
    expect(await k.notes(member)).toEqual([]);

    const events = await k.createdEvents(owner);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ user_id: owner.id, payload: { id: note.id, type: 'task.assigned' } });
  });

  it('does not tell an assignee twice about the same task (removed and added again, or added twice)', async () => {
    const { owner, member, stages } = await k.world();
    const task = await k.task(owner, stages[0]!.id);
    expect((await t.as(owner).post(`/tasks/${task.id}/assignees`, { userId: member.id })).statusCode).toBe(201);
    expect((await t.as(owner).post(`/tasks/${task.id}/assignees`, { userId: member.id })).statusCode).toBe(201);
    expect((await t.as(owner).delete(`/tasks/${task.id}/assignees/${member.id}`)).statusCode).toBe(200);
    expect((await t.as(owner).patch(`/tasks/${task.id}/assignees`, { responsibleUserId: [member.id, owner.id] })).statusCode).toBe(200);
    const notes = await k.notes(member);
    expect(notes.map((n) => [n.type, n.taskId])).toEqual([['task.assigned', task.id]]);
    expect(await k.createdEvents(member)).toHaveLength(1);
  });

  it('tells task members they were added', async () => {
    const { owner, member, stages } = await k.world();
    const task = await k.task(owner, stages[0]!.id);
    expect((await t.as(owner).post(`/tasks/${task.id}/members`, { userId: member.id })).statusCode).toBe(201);
    expect((await k.notes(member)).map((n) => n.type)).toEqual(['task.member-added']);
  });

  it('tells each mentioned user once per message, not the author', async () => {
    const { owner, member, task } = await k.world();
    const sent = await t.as(owner).post(`/tasks/${task.id}/messages`, { text: `@[${member.id}] and @[${owner.id}] look` });
    expect(sent.statusCode).toBe(201);
    const notes = await k.notes(member);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ type: 'message.mention', taskId: task.id, actorId: owner.id });
    expect((await k.notes(owner)).map((n) => n.type)).toEqual(['task.assigned']);
    const rows = await k.rows(member.id);
    expect(rows[0]!.dedup_key).toBe(`message.mention:${sent.json().id}`);
  });

  it('tells the creator and the members of a status change, not the one who changed it', async () => {
    const { owner, member, space, task } = await k.world();
    const follower = await k.spaceMember(owner, space.id, 'reader');
    expect((await t.as(owner).post(`/tasks/${task.id}/members`, { userId: follower.id })).statusCode).toBe(201);
    const changed = await t.as(owner).patch(`/tasks/${task.id}/status`, { status: 1 });
    expect(changed.statusCode).toBe(200);
    const historyId = changed.json().history.id;
    for (const user of [member, follower]) {
      const status = (await k.notes(user, '&type=task.status'));
      expect(status).toHaveLength(1);
      expect(status[0]).toMatchObject({ taskId: task.id, actorId: owner.id });
      expect(status[0]!.text).toContain('done');
    }
    expect(await k.notes(owner, '&type=task.status')).toEqual([]);
    expect((await k.rows(member.id)).map((r) => r.dedup_key)).toContain(`task.status:${historyId}`);
  });

  it('asks an inspector for a review and tells the creator and assignees of each verdict', async () => {
    const { owner, member, stages, space } = await k.world();
    const assignee = await k.spaceMember(owner, space.id, 'member');
    const task = await k.task(owner, stages[0]!.id, { responsibleUserId: [assignee.id] });
    expect((await t.as(owner).post(`/tasks/${task.id}/inspetor`, { inspectorId: member.id })).statusCode).toBe(201);
    expect((await k.notes(member, '&type=inspector.requested')).map((n) => n.taskId)).toEqual([task.id]);

    expect((await t.as(member).patch(`/tasks/${task.id}/inspetor/${member.id}/status`, { status: 2 })).statusCode).toBe(200);
    expect((await t.as(member).patch(`/tasks/${task.id}/inspetor/${member.id}/status`, { status: 1 })).statusCode).toBe(200);
    for (const user of [owner, assignee]) {
      const verdicts = await k.notes(user, '&type=inspector.verdict');
      expect(verdicts.map((n) => n.text)).toEqual([expect.stringContaining('approved'), expect.stringContaining('rejected')]);
    }
    expect(await k.notes(member, '&type=inspector.verdict')).toEqual([]);
  });

  it('asks an inspector again after a verdict, keyed by the change that asked, and only those it asked', async () => {
    const { owner, member, stages, space } = await k.world();
    const second = await k.spaceMember(owner, space.id, 'member');
    const task = await k.task(owner, stages[0]!.id);
    const requested = (user: typeof member) => k.notes(user, '&type=inspector.requested');
    const added = await t.as(owner).post(`/tasks/${task.id}/inspetor`, { inspectorId: member.id });
    expect(added.statusCode).toBe(201);
    // Another inspector joining does not ask the first, still waiting, again.
    expect((await t.as(owner).post(`/tasks/${task.id}/inspetor`, { inspectorId: second.id })).statusCode).toBe(201);
    expect(await requested(member)).toHaveLength(1);
    expect(await requested(second)).toHaveLength(1);

    // Rejected, then the inspector puts themselves back to waiting: their own action tells nobody.
    expect((await t.as(member).patch(`/tasks/${task.id}/inspetor/${member.id}/status`, { status: 2 })).statusCode).toBe(200);
    expect((await t.as(member).patch(`/tasks/${task.id}/inspetor/${member.id}/status`, { status: 0 })).statusCode).toBe(200);
    expect(await requested(member)).toHaveLength(1);
    // Rejected again; the owner asks again (removed and added back): a new request.
    expect((await t.as(member).patch(`/tasks/${task.id}/inspetor/${member.id}/status`, { status: 2 })).statusCode).toBe(200);
    expect((await t.as(owner).delete(`/tasks/${task.id}/inspetor/${member.id}`)).statusCode).toBe(200);
    const again = await t.as(owner).post(`/tasks/${task.id}/inspetor`, { inspectorId: member.id });
    expect(again.statusCode).toBe(201);
    expect(await requested(member)).toHaveLength(2);
    expect(await requested(second)).toHaveLength(1);
    const keys = (await k.rows(member.id)).filter((r) => r.type === 'inspector.requested').map((r) => r.dedup_key);
    expect(keys).toEqual([`inspector.requested:${added.json().history.id}:${member.id}`, `inspector.requested:${again.json().history.id}:${member.id}`]);
  });

  it('asks again when someone else puts a rejecting inspector back to waiting, once per change', () => {
    const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();
    const task = { id: 7, name: 'T', creatorId: 1, status: 0, responsibleUserId: [], members: [], inspectors: [] as unknown[] };
    const change = (id: number, ms: number, inspectors: Array<{ userId: number; status: number; updatedAt: string }>): RecordedEvent => ({
      organizationId: 1, id, type: 'task.updated', spaceId: 1, projectId: 1, taskId: 7, actorId: null, userId: null, at: at(ms),
      payload: { task: { ...task, inspectors: inspectors.map((i) => ({ comment: null, ...i })) }, history: { id: 100 + id, type: 15, updateDate: at(ms) } },
    });
    const keys = (e: RecordedEvent) => taskCandidates(e).filter((c) => c.type === 'inspector.requested').map((c) => `${c.userId} ${c.dedupKey}`);
    expect(keys(change(1, 0, [{ userId: 5, status: 0, updatedAt: at(0) }]))).toEqual(['5 inspector.requested:101:5']);
    expect(keys(change(2, 10, [{ userId: 5, status: 2, updatedAt: at(10) }]))).toEqual([]);
    // Back to waiting: a new request, keyed by this change; user 6, waiting since before, is not asked again.
    expect(keys(change(3, 20, [{ userId: 5, status: 0, updatedAt: at(20) }, { userId: 6, status: 0, updatedAt: at(5) }]))).toEqual([
      '5 inspector.requested:103:5',
    ]);
  });

  it('tells the task’s creator, assignees and members of a new comment; not the author; a mentioned user only of the mention', async () => {
    const { owner, member, space, stages } = await k.world();
    const users = [];
    for (const role of ['member', 'reader', 'member', 'member', 'member'] as const) users.push(await k.spaceMember(owner, space.id, role));
    const [assignee, follower, mentioned, author, outsider] = users;
    const task = await k.task(member, stages[0]!.id, { name: 'Mend the fence', responsibleUserId: [assignee!.id, mentioned!.id] });
    for (const user of [follower!, author!]) {
      expect((await t.as(owner).post(`/tasks/${task.id}/members`, { userId: user.id })).statusCode).toBe(201);
    }
    const sent = await t.as(author!).post(`/tasks/${task.id}/messages`, { text: `@[${mentioned!.id}] have a look` });
    expect(sent.statusCode).toBe(201);
    const messageId = sent.json().id;

    for (const user of [member, assignee!, follower!]) {
      const comments = await k.notes(user, '&type=message.created');
      expect(comments).toHaveLength(1);
      expect(comments[0]).toMatchObject({ taskId: task.id, actorId: author!.id });
      expect(comments[0]!.text).toContain('Mend the fence');
      expect((await k.rows(user.id)).filter((r) => r.type === 'message.created').map((r) => r.dedup_key)).toEqual([`message.created:${messageId}`]);
    }
    expect((await k.notes(mentioned!)).filter((n) => n.type.startsWith('message.')).map((n) => n.type)).toEqual(['message.mention']);
    expect((await k.rows(author!.id)).filter((r) => r.type.startsWith('message.'))).toEqual([]);
    expect(await k.rows(outsider!.id)).toEqual([]);

    // Editing the message is no new comment.
    expect((await t.as(author!).patch(`/tasks/${task.id}/messages/${messageId}/text`, { text: 'edited' })).statusCode).toBe(200);
    expect(await k.notes(member, '&type=message.created')).toHaveLength(1);
  });

  it('leaves out users who cannot read the task', async () => {
    const { owner, space, stages } = await k.world();
    const leaver = await k.spaceMember(owner, space.id, 'member');
    const task = await k.task(owner, stages[0]!.id, { responsibleUserId: [leaver.id] });
    expect((await k.notes(leaver)).map((n) => n.type)).toEqual(['task.assigned']);
    await t.sql(sql`delete from space_members where user_id = ${leaver.id} and space_id = ${space.id}`);
    expect((await t.as(owner).post(`/tasks/${task.id}/members`, { userId: leaver.id })).statusCode).toBe(400);
    await t.sql(sql`insert into task_members (organization_id, task_id, user_id) values (${owner.organizationId}, ${task.id}, ${leaver.id})`);
    expect((await t.as(owner).patch(`/tasks/${task.id}/status`, { status: 1 })).statusCode).toBe(200);
    expect((await k.rows(leaver.id)).map((r) => r.type)).toEqual(['task.assigned']);
  });

  it('creates nothing when the change rolls back', async () => {
    const { owner, member, stages } = await k.world();
    const stranger = await t.org();
    const refused = await t.as(owner).post('/tasks', { name: 'T', stageId: stages[0]!.id, responsibleUserId: [member.id, stranger.id] });
    expectProblem(refused, 400);
    expect(await k.rows(member.id)).toEqual([]);

    // A failure after the pipeline wrote (a later listener, at commit time) takes its notifications with it.
    let failing = true;
    t.app.events.addListener(async (_db, events) => {
      if (failing && events.some((e) => e.type === 'notification.created' && e.userId === member.id)) throw new Error('injected failure');
    });
    const failed = await t.as(owner).post('/tasks', { name: 'T', stageId: stages[0]!.id, responsibleUserId: [member.id] });
    failing = false;
    expect(failed.statusCode).toBe(500);
    expect(await k.rows(member.id)).toEqual([]);
    expect(await k.createdEvents(member)).toEqual([]);
  });
});

describe('cost', () => {
  it('runs no query for events that cannot notify anyone', async () => {
    const noDb = new Proxy({}, { get: () => { throw new Error('the pipeline queried the database'); } }) as Queryable;
    const event = (type: RecordedEvent['type'], payload: unknown, actorId: number | null = 1): RecordedEvent => ({
      organizationId: 1, id: 1, type, spaceId: 1, projectId: 1, taskId: 1, actorId, userId: null, at: new Date().toISOString(), payload,
    });
    const task = { id: 1, name: 'T', creatorId: 1, status: 1, responsibleUserId: [1], members: [], inspectors: [] };
    const emitted: unknown[] = [];
    const write = await notificationPipeline(
      noDb,
      [
        event('task.moved', { task, history: { id: 1, type: 3 } }),
        event('task.updated', { task, history: { id: 2, type: 7 } }),
        // A status change whose only follower is the actor.
        event('task.updated', { task, history: { id: 3, type: 4 } }),
        event('notification.created', { id: 1 }),
        event('reglament.updated', { id: 1, mandatory: false }),
        event('label.created', { id: 1 }),
      ],
    );
    expect(typeof write === 'function' || write === undefined).toBe(true);
    if (typeof write === 'function') await write((e) => emitted.push(e));
    expect(emitted).toEqual([]);
  });
});

describe('due dates', () => {
  const past = (ms: number) => new Date(Date.now() - ms).toISOString();

  it('tells each assignee of an overdue open task once, however often and concurrently the job runs', async () => {
    const { owner, member, stages } = await k.world();
    const overdue = await k.task(owner, stages[0]!.id, { dateEnd: past(3_600_000), responsibleUserId: [member.id, owner.id] });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const byDate = await k.task(owner, stages[0]!.id, { dateEndWithoutTime: yesterday, responsibleUserId: [member.id] });
    const done = await k.task(owner, stages[0]!.id, { dateEnd: past(3_600_000), responsibleUserId: [member.id] });
    expect((await t.as(owner).patch(`/tasks/${done.id}/status`, { status: 1 })).statusCode).toBe(200);
    await k.task(owner, stages[0]!.id, { dateEnd: new Date(Date.now() + 3_600_000).toISOString(), responsibleUserId: [member.id] });

    await Promise.all([runJob(t.app, DUE_JOB, { force: true }), runJob(t.app, DUE_JOB, { force: true })]);
    await runJob(t.app, DUE_JOB, { force: true });

    const due = await k.notes(member, '&type=task.due');
    expect(due.map((n) => n.taskId).sort()).toEqual([overdue.id, byDate.id].sort());
    expect(due.every((n) => n.actorId === null)).toBe(true);
    expect((await k.notes(owner, '&type=task.due')).map((n) => n.taskId)).toEqual([overdue.id]);
    expect((await k.rows(member.id)).filter((r) => r.type === 'task.due').map((r) => r.dedup_key)).toContain(`task.due:${byDate.id}:${yesterday}`);
    const events = await t.sql<{ n: number }>(
      sql`select count(*)::int as n from events where organization_id = ${owner.organizationId} and type = 'notification.created' and payload->>'type' = 'task.due'`,
    );
    expect(events[0]!.n).toBe(3);
  });

  it('tells again when the due date moves and passes again', async () => {
    const { owner, member, stages } = await k.world();
    const task = await k.task(owner, stages[0]!.id, { dateEnd: past(7_200_000), responsibleUserId: [member.id] });
    await runJob(t.app, DUE_JOB, { force: true });
    expect((await t.as(owner).patch(`/tasks/${task.id}/dates`, { dateEnd: past(3_600_000) })).statusCode).toBe(200);
    await runJob(t.app, DUE_JOB, { force: true });
    expect(await k.notes(member, '&type=task.due')).toHaveLength(2);
  });

  it('leaves out an assignee who can no longer read the task, without reopening the organization every minute', async () => {
    const { owner, member, space, stages } = await k.world();
    await k.task(owner, stages[0]!.id, { dateEnd: past(3_600_000), responsibleUserId: [member.id] });
    expect(await organizationsOwingDueNotices(t.database.db)).toContain(owner.organizationId);
    expect((await t.as(owner).delete(`/spaces/${space.id}/members/${member.id}`)).statusCode).toBe(204);
    expect(await organizationsOwingDueNotices(t.database.db)).not.toContain(owner.organizationId);
    await runJob(t.app, DUE_JOB, { force: true });
    expect(await k.notes(member, '&type=task.due')).toEqual([]);
  });
});
