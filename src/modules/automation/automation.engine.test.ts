import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { runJob } from '../../platform/jobs.js';
import { AUTOMATION_RUN_JOB, AUTOMATION_TICK_JOB } from './automation.jobs.js';
import { runOne } from './automation.engine.js';

const t = useTestApp();
const f = factories(t);

async function world() {
  const { owner, space, project, stages } = await f.board(3);
  const member = await f.spaceMember(owner, space.id, 'member');
  const label = (await t.as(owner).post('/labels', { name: 'Shipped', color: '#00AA00' })).json();
  const [todo, doing, done] = stages as Array<{ id: number }>;
  const task = await f.task(owner, todo!.id, { name: 'Build it' });
  return { owner, space, project, todo: todo!, doing: doing!, done: done!, member, label, task };
}

async function addRule(owner: TestUser, projectId: number, rule: Record<string, unknown>) {
  const res = await t.as(owner).post(`/projects/${projectId}/automation-rules`, rule);
  expect(res.statusCode).toBe(201);
  return res.json() as { id: number };
}

const move = (user: TestUser, taskId: number, stageId: number) => t.as(user).post('/tasks/move', { taskIds: [taskId], stageId });
const drain = () => runJob(t.app, AUTOMATION_RUN_JOB);
const getTask = async (user: TestUser, id: number) => (await t.as(user).get(`/tasks/${id}`)).json();
const runsOf = async (user: TestUser, projectId: number, ruleId: number) => {
  const res = await t.as(user).get(`/projects/${projectId}/automation-rules/${ruleId}/runs`);
  expect(res.statusCode).toBe(200);
  return res.json() as Array<{ status: string; error: string | null; depth: number; eventId: number | null; taskId: number | null; cause: string; durationMs: number | null }>;
};
const eventsOf = (orgId: number, types: string) =>
  t.sql<{ id: number; type: string; actor_id: number | null; task_id: number | null; payload: Record<string, unknown> }>(
    sql`select id, type, actor_id, task_id, payload from events where organization_id = ${orgId} and type like ${types} order by id`,
  );

describe('automation engine', () => {
  it('entered Done → set status done and add a label: applied after commit as the system, named in history', async () => {
    const w = await world();
    const rule = await addRule(w.owner, w.project.id, {
      name: 'Ship it',
      trigger: { type: 'entered-stage', stageId: w.done.id },
      actions: [
        { type: 'set-status', params: { status: 1 } },
        { type: 'add-labels', params: { labelIds: [w.label.id] } },
      ],
    });
    const moved = await move(w.member, w.task.id, w.done.id);
    expect(moved.statusCode).toBe(200);
    // The move itself answers before the rule: its task is unchanged.
    expect(moved.json().tasks[0]).toMatchObject({ status: 0, tags: [] });
    await drain();

    const task = await getTask(w.owner, w.task.id);
    expect(task).toMatchObject({ status: 1, tags: [w.label.id] });
    const history = (await t.as(w.owner).get(`/tasks/${w.task.id}/history`)).json() as Array<{ type: number; userId: number | null; state: string }>;
    const byRule = history.filter((h) => h.userId === null);
    expect(byRule.map((h) => h.type).sort((a, b) => a - b)).toEqual([4, 10]);
    for (const h of byRule) expect(h.state).toContain('automation rule "Ship it"');
    const stored = await t.sql<{ automation_rule_id: number }>(sql`select automation_rule_id from task_history where task_id = ${w.task.id} and user_id is null`);
    expect(stored.map((r) => Number(r.automation_rule_id))).toEqual([rule.id, rule.id]);

    const events = await eventsOf(w.owner.organizationId, 'task.%');
    const after = events.slice(events.findIndex((e) => e.type === 'task.moved') + 1);
    expect(after.map((e) => [e.type, e.actor_id])).toEqual([
      ['task.updated', null],
      ['task.updated', null],
    ]);
    const runs = await runsOf(w.owner, w.project.id, rule.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'succeeded', error: null, depth: 1, taskId: w.task.id });
    expect(runs[0]!.eventId).toBe(events.find((e) => e.type === 'task.moved')!.id);
    const saved = (await t.as(w.owner).get(`/projects/${w.project.id}/automation-rules`)).json()[0];
    expect(saved.lastRunAt).not.toBeNull();

    // Exactly once: the run is done; draining again or running it again does nothing.
    await drain();
    const [row] = await t.sql<{ id: number }>(sql`select id from automation_runs where rule_id = ${rule.id}`);
    expect(await runOne(t.app, Number(row!.id), w.owner.organizationId)).toBe(false);
    expect((await t.sql(sql`select 1 from task_history where task_id = ${w.task.id} and user_id is null`)).length).toBe(2);
  });

  it('two rules that trigger each other stop at depth 3 with automation.rule.failed', async () => {
    const w = await world();
    const a = await addRule(w.owner, w.project.id, { name: 'To done', trigger: { type: 'entered-stage', stageId: w.doing.id }, actions: [{ type: 'move-to-stage', params: { stageId: w.done.id } }] });
    const b = await addRule(w.owner, w.project.id, { name: 'Back to doing', trigger: { type: 'entered-stage', stageId: w.done.id }, actions: [{ type: 'move-to-stage', params: { stageId: w.doing.id } }] });
    expect((await move(w.owner, w.task.id, w.doing.id)).statusCode).toBe(200);
    await drain();

    const runsA = await runsOf(w.owner, w.project.id, a.id);
    const runsB = await runsOf(w.owner, w.project.id, b.id);
    expect(runsA.map((r) => [r.depth, r.status]).reverse()).toEqual([
      [1, 'succeeded'],
      [3, 'succeeded'],
    ]);
    expect(runsB.map((r) => [r.depth, r.status]).reverse()).toEqual([
      [2, 'succeeded'],
      [4, 'failed'],
    ]);
    expect(runsB[0]!.error).toContain('3 times');
    const failed = await eventsOf(w.owner.organizationId, 'automation.rule.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ actor_id: null, task_id: w.task.id });
    expect(failed[0]!.payload).toMatchObject({ ruleId: b.id, ruleName: 'Back to doing', taskId: w.task.id });
    const rules = (await t.as(w.owner).get(`/projects/${w.project.id}/automation-rules`)).json() as Array<{ id: number; lastError: string | null }>;
    expect(rules.find((r) => r.id === b.id)!.lastError).toContain('3 times');
    // Rule A's third run left it in Done, where the chain stopped.
    expect((await getTask(w.owner, w.task.id)).stages[0].stageId).toBe(w.done.id);
  });

  it('a rule whose label was deleted fails visibly, undoes its other actions and keeps the move', async () => {
    const w = await world();
    const rule = await addRule(w.owner, w.project.id, {
      name: 'Ship it',
      trigger: { type: 'entered-stage', stageId: w.done.id },
      actions: [
        { type: 'set-status', params: { status: 1 } },
        { type: 'add-labels', params: { labelIds: [w.label.id] } },
        { type: 'add-comment', params: { text: 'shipped' } },
      ],
    });
    expect((await t.as(w.owner).delete(`/labels/${w.label.id}`)).statusCode).toBe(204);
    expect((await move(w.member, w.task.id, w.done.id)).statusCode).toBe(200);
    await drain();

    const task = await getTask(w.owner, w.task.id);
    expect(task.stages[0].stageId).toBe(w.done.id);
    expect(task).toMatchObject({ status: 0, tags: [], hasMessages: false });
    const runs = await runsOf(w.owner, w.project.id, rule.id);
    expect(runs[0]).toMatchObject({ status: 'failed' });
    expect(runs[0]!.error).toMatch(/^action 2 \(add-labels\): /);
    const saved = (await t.as(w.owner).get(`/projects/${w.project.id}/automation-rules`)).json()[0];
    expect(saved.lastError).toBe(runs[0]!.error);
    const failed = await eventsOf(w.owner.organizationId, 'automation.rule.failed');
    expect(failed.map((e) => e.payload.ruleId)).toEqual([rule.id]);
    // Nothing of the undone actions reached the change log.
    const events = await eventsOf(w.owner.organizationId, 'task.%');
    expect(events.filter((e) => e.actor_id === null)).toEqual([]);

    // The broken rule can be switched off and renamed, but not switched on again as it is.
    const url = `/projects/${w.project.id}/automation-rules/${rule.id}`;
    expect((await t.as(w.owner).patch(url, { enabled: false, name: 'Ship it (broken)' })).json()).toMatchObject({ enabled: false, name: 'Ship it (broken)' });
    expect((await t.as(w.owner).patch(url, { enabled: true })).statusCode).toBe(400);
    expect((await t.as(w.owner).get(`/projects/${w.project.id}/automation-rules`)).json()[0].enabled).toBe(false);
  });

  it('skips a run whose rule was disabled after it was queued, and one whose conditions do not hold', async () => {
    const w = await world();
    const off = await addRule(w.owner, w.project.id, { name: 'Off', trigger: { type: 'entered-stage', stageId: w.done.id }, actions: [{ type: 'set-status', params: { status: 1 } }] });
    const picky = await addRule(w.owner, w.project.id, {
      name: 'Only bugs',
      trigger: { type: 'entered-stage', stageId: w.done.id },
      conditions: [{ field: 'name', op: 'contains', value: 'BUG' }],
      actions: [{ type: 'set-importance', params: { importance: 3 } }],
    });
    expect((await move(w.owner, w.task.id, w.done.id)).statusCode).toBe(200);
    expect((await t.as(w.owner).patch(`/projects/${w.project.id}/automation-rules/${off.id}`, { enabled: false })).statusCode).toBe(200);
    await drain();
    expect((await runsOf(w.owner, w.project.id, off.id))[0]).toMatchObject({ status: 'skipped', error: 'the rule is disabled' });
    expect((await runsOf(w.owner, w.project.id, picky.id))[0]).toMatchObject({ status: 'skipped', error: 'the conditions did not hold' });
    expect(await getTask(w.owner, w.task.id)).toMatchObject({ status: 0, importance: -1 });

    // The same rule fires for a task whose name matches.
    const bug = await f.task(w.owner, w.todo.id, { name: 'Fix the bug' });
    await move(w.owner, bug.id, w.done.id);
    await drain();
    expect((await getTask(w.owner, bug.id)).importance).toBe(3);
  });

  it('status, assignee, label and checklist triggers fire on the change they name only', async () => {
    const w = await world();
    const onDone = await addRule(w.owner, w.project.id, { name: 'done', trigger: { type: 'status-changed', status: 1 }, actions: [{ type: 'add-comment', params: { text: 'well done' } }] });
    const onAssign = await addRule(w.owner, w.project.id, { name: 'assigned', trigger: { type: 'assignee-added', userId: w.member.id }, actions: [{ type: 'add-members', params: { userIds: [w.owner.id] } }] });
    const onLabel = await addRule(w.owner, w.project.id, { name: 'labelled', trigger: { type: 'label-added', labelId: w.label.id }, actions: [{ type: 'set-importance', params: { importance: 2 } }] });
    const onChecklist = await addRule(w.owner, w.project.id, { name: 'checked', trigger: { type: 'checklist-completed' }, actions: [{ type: 'move-to-stage', params: { stageId: w.done.id } }] });

    await t.as(w.owner).patch(`/tasks/${w.task.id}/status`, { status: 3, blockReason: 'waiting' });
    await t.as(w.owner).post(`/tasks/${w.task.id}/assignees`, { userId: w.owner.id });
    const sub = (await t.as(w.owner).post(`/tasks/${w.task.id}/subtasks`, { name: 'one' })).json();
    await drain();
    for (const r of [onDone, onAssign, onLabel, onChecklist]) expect(await runsOf(w.owner, w.project.id, r.id)).toEqual([]);

    await t.as(w.owner).patch(`/tasks/${w.task.id}/status`, { status: 1 });
    await t.as(w.owner).post(`/tasks/${w.task.id}/assignees`, { userId: w.member.id });
    await t.as(w.owner).post(`/tasks/${w.task.id}/labels`, { labelId: w.label.id });
    const subtaskId = sub.list?.[0]?.id ?? sub.task?.list?.[0]?.id ?? sub.id;
    expect((await t.as(w.owner).patch(`/tasks/${w.task.id}/subtasks/${subtaskId}/is-checked`, { isChecked: true })).statusCode).toBe(200);
    await drain();
    for (const r of [onDone, onAssign, onLabel, onChecklist]) expect((await runsOf(w.owner, w.project.id, r.id)).map((x) => x.status)).toEqual(['succeeded']);
    const task = await getTask(w.owner, w.task.id);
    expect(task).toMatchObject({ importance: 2, members: [w.owner.id], hasMessages: true });
    expect(task.stages[0].stageId).toBe(w.done.id);
    const messages = (await t.as(w.owner).get(`/tasks/${w.task.id}/messages`)).json();
    const list = Array.isArray(messages) ? messages : messages.items;
    expect(list.map((m: { text: string; authorId: number | null }) => [m.text, m.authorId])).toEqual([['well done', null]]);
  });

  it('call-webhook queues a signed delivery of automation.rule.triggered to that webhook only; notify notifies', async () => {
    const w = await world();
    const hook = (await t.as(w.owner).post('/webhooks', { url: 'https://hooks.example.com/rule', events: ['reglament.question.deleted'] })).json();
    const everything = (await t.as(w.owner).post('/webhooks', { url: 'https://hooks.example.com/all', events: ['automation.*'] })).json();
    const rule = await addRule(w.owner, w.project.id, {
      name: 'Tell',
      trigger: { type: 'task.created' },
      actions: [
        { type: 'call-webhook', params: { webhookId: hook.id } },
        { type: 'notify', params: { userIds: [w.member.id], text: 'A task was created' } },
      ],
    });
    const task = await f.task(w.owner, w.todo.id, { name: 'New one' });
    await drain();
    const deliveries = await t.sql<{ webhook_id: number; event_type: string; body: string }>(
      sql`select webhook_id, event_type, body from webhook_deliveries where organization_id = ${w.owner.organizationId} and event_type = 'automation.rule.triggered' order by id`,
    );
    expect(deliveries.map((d) => [Number(d.webhook_id), d.event_type])).toEqual([[hook.id, 'automation.rule.triggered']]);
    expect(JSON.parse(deliveries[0]!.body)).toMatchObject({ type: 'automation.rule.triggered', actorId: null, taskId: task.id, payload: { ruleId: rule.id, taskId: task.id, webhookIds: [hook.id] } });
    expect(everything.id).not.toBe(hook.id);
    const notes = (await t.as(w.member).get('/notifications')).json();
    const items = Array.isArray(notes) ? notes : notes.items;
    expect(items.map((n: { type: string; text: string; taskId: number }) => [n.type, n.text, n.taskId])).toContainEqual(['automation.notice', 'A task was created', task.id]);
  });

  it('a schedule creates one task per occurrence and catches up once after downtime', async () => {
    const w = await world();
    const rule = await addRule(w.owner, w.project.id, {
      name: 'Daily standup notes',
      trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Asia/Tokyo' },
      actions: [{ type: 'create-task', params: { name: 'Standup notes', stageId: w.todo.id, assigneeIds: [w.member.id], labelIds: [w.label.id], dueInDays: 1 } }],
    });
    const standups = async () => (await t.sql<{ id: number }>(sql`select id from tasks where project_id = ${w.project.id} and name = 'Standup notes'`)).length;
    // Not due yet: nothing happens.
    await runJob(t.app, AUTOMATION_TICK_JOB);
    expect(await standups()).toBe(0);

    // The service was down over three occurrences: one run catches up, not three.
    await t.sql(sql`update automation_rules set next_run_at = now() - interval '3 days' where id = ${rule.id}`);
    await runJob(t.app, AUTOMATION_TICK_JOB);
    await runJob(t.app, AUTOMATION_TICK_JOB);
    await drain();
    expect(await standups()).toBe(1);
    const created = await t.sql<{ id: number; creator_id: number }>(sql`select id, creator_id from tasks where project_id = ${w.project.id} and name = 'Standup notes'`);
    const task = await getTask(w.owner, Number(created[0]!.id));
    expect(task).toMatchObject({ responsibleUserId: [w.member.id], tags: [w.label.id] });
    expect(task.dateEndWithoutTime).toBe(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
    const saved = (await t.as(w.owner).get(`/projects/${w.project.id}/automation-rules`)).json()[0];
    expect(new Date(saved.nextRunAt).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(saved.nextRunAt).getUTCHours()).toBe(0); // 09:00 in Tokyo
    const runs = await runsOf(w.owner, w.project.id, rule.id);
    expect(runs.map((r) => [r.status, r.cause.slice(0, 2), r.taskId])).toEqual([['succeeded', 's:', null]]);
  });

  it('overdue fires once per task and due moment, from the tick', async () => {
    const w = await world();
    const rule = await addRule(w.owner, w.project.id, { name: 'Escalate', trigger: { type: 'overdue' }, actions: [{ type: 'set-importance', params: { importance: 3 } }] });
    const late = await f.task(w.owner, w.todo.id, { name: 'Late', dateEnd: new Date(Date.now() - 3_600_000).toISOString() });
    await f.task(w.owner, w.todo.id, { name: 'Fine', dateEnd: new Date(Date.now() + 86_400_000).toISOString() });
    const finished = await f.task(w.owner, w.todo.id, { name: 'Finished late', dateEnd: new Date(Date.now() - 3_600_000).toISOString() });
    await t.as(w.owner).patch(`/tasks/${finished.id}/status`, { status: 1 });
    await runJob(t.app, AUTOMATION_TICK_JOB);
    await runJob(t.app, AUTOMATION_TICK_JOB);
    await drain();
    const runs = await runsOf(w.owner, w.project.id, rule.id);
    expect(runs.map((r) => [r.taskId, r.status])).toEqual([[late.id, 'succeeded']]);
    expect((await getTask(w.owner, late.id)).importance).toBe(3);
  });
});
