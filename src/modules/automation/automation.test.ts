import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';

const t = useTestApp();
const f = factories(t);

const RULE_KEYS = ['actions', 'conditions', 'createdAt', 'creatorId', 'enabled', 'id', 'lastError', 'lastRunAt', 'name', 'nextRunAt', 'order', 'projectId', 'trigger', 'updatedAt'];

async function world() {
  const { owner, space, project, stages } = await f.board(3);
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const member = await f.spaceMember(owner, space.id, 'member');
  const reader = await f.spaceMember(owner, space.id, 'reader');
  const label = (await t.as(owner).post('/labels', { name: 'Shipped', color: '#00AA00' })).json();
  const [todo, doing, done] = stages as Array<{ id: number }>;
  const rule = {
    name: 'Ship it',
    trigger: { type: 'entered-stage', stageId: done!.id },
    actions: [
      { type: 'set-status', params: { status: 1 } },
      { type: 'add-labels', params: { labelIds: [label.id] } },
    ],
  };
  return { owner, space, project, todo: todo!, doing: doing!, done: done!, editor, member, reader, label, rule };
}

const rulesOf = (projectId: number) => t.sql<{ id: number }>(sql`select id from automation_rules where project_id = ${projectId}`);

describe('automation rules', () => {
  it('creates, lists (by column), reorders, disables and deletes rules; hasAutomatization follows enabled rules', async () => {
    const w = await world();
    const created = await t.as(w.editor).post(`/projects/${w.project.id}/automation-rules`, w.rule);
    expect(created.statusCode).toBe(201);
    const rule = created.json();
    expect(Object.keys(rule).sort()).toEqual(RULE_KEYS);
    expect(rule).toMatchObject({ name: 'Ship it', enabled: true, order: 0, conditions: [], creatorId: w.editor.id, lastRunAt: null, lastError: null, nextRunAt: null });
    expect(rule.trigger).toEqual(w.rule.trigger);
    expect(rule.actions).toEqual(w.rule.actions);

    const second = (
      await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, {
        name: 'Triage',
        trigger: { type: 'task.created' },
        conditions: [{ field: 'name', op: 'contains', value: 'bug' }],
        actions: [{ type: 'set-importance', params: { importance: 3 } }],
        enabled: false,
      })
    ).json();
    expect(second).toMatchObject({ order: 1, enabled: false });

    const all = await t.as(w.reader).get(`/projects/${w.project.id}/automation-rules`);
    expect(all.statusCode).toBe(200);
    expect(all.json().map((r: { name: string }) => r.name)).toEqual(['Ship it', 'Triage']);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}/automation-rules?stageId=${w.done.id}`)).json().map((r: { id: number }) => r.id)).toEqual([rule.id]);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}/automation-rules?stageId=${w.todo.id}`)).json()).toEqual([]);

    const color = (stageId: number) => t.as(w.owner).patch(`/projects/${w.project.id}/stages/${stageId}/color`, { color: '#123456' });
    expect((await color(w.done.id)).json().hasAutomatization).toBe(true);
    expect((await color(w.todo.id)).json().hasAutomatization).toBe(false);

    const moved = await t.as(w.editor).patch(`/projects/${w.project.id}/automation-rules/${second.id}`, { order: 0 });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().order).toBe(0);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}/automation-rules`)).json().map((r: { name: string; order: number }) => [r.name, r.order])).toEqual([
      ['Triage', 0],
      ['Ship it', 1],
    ]);

    const disabled = await t.as(w.editor).patch(`/projects/${w.project.id}/automation-rules/${rule.id}`, { enabled: false });
    expect(disabled.json()).toMatchObject({ enabled: false, name: 'Ship it' });
    expect((await color(w.done.id)).json().hasAutomatization).toBe(false);

    expect((await t.as(w.editor).delete(`/projects/${w.project.id}/automation-rules/${second.id}`)).statusCode).toBe(204);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}/automation-rules`)).json().map((r: { name: string; order: number }) => [r.name, r.order])).toEqual([['Ship it', 0]]);
    expectProblem(await t.as(w.editor).delete(`/projects/${w.project.id}/automation-rules/${second.id}`), 404);
  });

  it('emits automation.rule.* events', async () => {
    const w = await world();
    const rule = (await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, w.rule)).json();
    await t.as(w.owner).patch(`/projects/${w.project.id}/automation-rules/${rule.id}`, { name: 'Renamed' });
    await t.as(w.owner).delete(`/projects/${w.project.id}/automation-rules/${rule.id}`);
    const events = await t.sql<{ type: string; project_id: number; payload: { id: number; name?: string } }>(
      sql`select type, project_id, payload from events where organization_id = ${w.owner.organizationId} and type like 'automation.%' order by id`,
    );
    expect(events.map((e) => [e.type, Number(e.project_id), e.payload.id])).toEqual([
      ['automation.rule.created', w.project.id, rule.id],
      ['automation.rule.updated', w.project.id, rule.id],
      ['automation.rule.deleted', w.project.id, rule.id],
    ]);
    expect(events[1]!.payload.name).toBe('Renamed');
  });

  it.each([
    ['an unknown trigger type', { trigger: { type: 'task.exploded' } }, '/trigger/type'],
    ['a stage of another project', 'foreign-stage', '/trigger/stageId'],
    ['entered-stage without a stage', { trigger: { type: 'entered-stage' } }, '/trigger/stageId'],
    ['a field the trigger does not take', { trigger: { type: 'task.created', cron: '* * * * *' } }, '/trigger/cron'],
    ['an unknown action', { actions: [{ type: 'launch-rocket', params: {} }] }, '/actions/0'],
    ['no actions', { actions: [] }, '/actions'],
    ['a label of another organization', 'foreign-label', '/actions/1/params/labelIds'],
    ['a condition op the field does not take', { conditions: [{ field: 'name', op: 'empty' }] }, '/conditions/0'],
    ['a bad cron expression', { trigger: { type: 'schedule', cron: 'every tuesday', timezone: 'UTC' }, actions: [{ type: 'notify', params: { userIds: [1], text: 'x' } }] }, '/trigger/cron'],
    ['an unknown time zone', { trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Mars/Olympus' }, actions: [{ type: 'notify', params: { userIds: [1], text: 'x' } }] }, '/trigger/timezone'],
    ['a task action on a schedule', { trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'UTC' } }, '/actions/0/type'],
  ])('refuses %s with 400 and saves nothing', async (_what, change, path) => {
    const w = await world();
    let body: Record<string, unknown> = { ...w.rule, ...(typeof change === 'object' ? change : {}) };
    if (change === 'foreign-stage') {
      const other = await f.project(w.owner, w.space.id, 'Other');
      const stage = await f.stage(w.owner, other.id, 'Elsewhere');
      body = { ...w.rule, trigger: { type: 'entered-stage', stageId: stage.id } };
    }
    if (change === 'foreign-label') {
      const stranger = await t.org();
      const label = (await t.as(stranger).post('/labels', { name: 'Theirs', color: '#000000' })).json();
      body = { ...w.rule, actions: [w.rule.actions[0], { type: 'add-labels', params: { labelIds: [label.id] } }] };
    }
    const res = await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, body);
    const problem = expectProblem(res, 400);
    expect(JSON.stringify(problem)).toContain(path);
    expect(await rulesOf(w.project.id)).toEqual([]);
  });

  it('drops a parameter the action does not take, as every body drops unknown fields', async () => {
    const w = await world();
    const res = await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, { ...w.rule, actions: [{ type: 'set-status', params: { status: 1, labelIds: [1] } }] });
    expect(res.statusCode).toBe(201);
    expect(res.json().actions).toEqual([{ type: 'set-status', params: { status: 1 } }]);
  });

  it('saves a create-task action with every parameter (the last branch of the action union)', async () => {
    const w = await world();
    const action = { type: 'create-task', params: { name: 'Weekly report', stageId: w.todo.id, description: 'd', assigneeIds: [w.member.id], labelIds: [w.label.id], dueInDays: 2 } };
    const res = await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, {
      name: 'Weekly',
      trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
      actions: [action],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().actions).toEqual([action]);
    // Next Monday 09:00 in Berlin: 07:00 or 08:00 UTC.
    const next = new Date(res.json().nextRunAt);
    expect(next.getUTCDay()).toBe(1);
    expect([7, 8]).toContain(next.getUTCHours());
    expect(next.getTime()).toBeGreaterThan(Date.now());
  });

  it("refuses a webhook the rule's creator does not manage, and a column they may not add to", async () => {
    const w = await world();
    const hook = (await t.as(w.owner).post('/webhooks', { url: 'https://hooks.example.com/x', events: ['task.created'] })).json();
    expectProblem(
      await t.as(w.editor).post(`/projects/${w.project.id}/automation-rules`, { ...w.rule, actions: [{ type: 'call-webhook', params: { webhookId: hook.id } }] }),
      400,
    );
    const hidden = await f.space(w.owner, 'Private');
    const hiddenProject = await f.project(w.owner, hidden.id, 'Hidden');
    const hiddenStage = await f.stage(w.owner, hiddenProject.id, 'Secret');
    expectProblem(
      await t.as(w.editor).post(`/projects/${w.project.id}/automation-rules`, { ...w.rule, actions: [{ type: 'move-to-stage', params: { stageId: hiddenStage.id } }] }),
      400,
    );
    expect(await rulesOf(w.project.id)).toEqual([]);
  });
});

commonCases(t, 'GET /projects/{projectId}/automation-rules', {
  method: 'GET',
  setup: async () => {
    const w = await world();
    return { url: `/projects/${w.project.id}/automation-rules`, owner: w.reader };
  },
});
commonCases(t, 'POST /projects/{projectId}/automation-rules', {
  method: 'POST',
  setup: async () => {
    const w = await world();
    return { url: `/projects/${w.project.id}/automation-rules`, owner: w.editor, body: w.rule, badBody: { ...w.rule, trigger: { type: 'left-stage' } }, forbidden: w.member };
  },
});
commonCases(t, 'PATCH /projects/{projectId}/automation-rules/{ruleId}', {
  method: 'PATCH',
  setup: async () => {
    const w = await world();
    const rule = (await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, w.rule)).json();
    return { url: `/projects/${w.project.id}/automation-rules/${rule.id}`, owner: w.editor, body: { name: 'Renamed' }, badBody: { actions: [] }, forbidden: w.member };
  },
});
commonCases(t, 'DELETE /projects/{projectId}/automation-rules/{ruleId}', {
  method: 'DELETE',
  setup: async () => {
    const w = await world();
    const rule = (await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, w.rule)).json();
    return { url: `/projects/${w.project.id}/automation-rules/${rule.id}`, owner: w.editor, forbidden: w.reader };
  },
});
commonCases(t, 'GET /projects/{projectId}/automation-rules/{ruleId}/runs', {
  method: 'GET',
  setup: async () => {
    const w = await world();
    const rule = (await t.as(w.owner).post(`/projects/${w.project.id}/automation-rules`, w.rule)).json();
    return { url: `/projects/${w.project.id}/automation-rules/${rule.id}/runs`, owner: w.reader };
  },
});
