import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { useTestApp } from '../../test/app.js';
import { reglamentFactories } from '../reglaments/reglaments.fixtures.js';
import { notificationKit } from './notifications.fixtures.js';

// Notifications from other modules' events: mandatory reglaments and disabled webhooks.
const t = useTestApp();
const k = notificationKit(t);
const r = reglamentFactories(t);

describe('reglament.mandatory', () => {
  async function mandatoryWorld() {
    const w = await r.world();
    const mandatory = await r.reglament(w.owner, w.group.id, { name: 'Fire drill', order: 1 });
    expect((await t.as(w.owner).patch(`/reglaments/${mandatory.id}/mandatory`, { mandatory: true })).statusCode).toBe(200);
    return { ...w, mandatory };
  }

  it('tells someone who joins a space holding a mandatory reglament they have not passed', async () => {
    const { owner, space, mandatory } = await mandatoryWorld();
    const joiner = await k.spaceMember(owner, space.id, 'reader');
    const notes = await k.notes(joiner);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ type: 'reglament.mandatory', taskId: null, spaceId: space.id, actorId: owner.id });
    expect(notes[0]!.text).toContain('Fire drill');
    expect((await k.rows(joiner.id))[0]!.dedup_key).toBe(`reglament.mandatory:${mandatory.id}`);
  });

  it('tells someone who joins by invite link, though they are the actor of their own join', async () => {
    const { owner, space, mandatory } = await mandatoryWorld();
    const link = await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'reader' });
    expect(link.statusCode).toBe(201);
    const joiner = await t.org();
    expect((await t.as(joiner).post(`/invite-links/${link.json().token}/join`)).statusCode).toBe(201);
    // Once, however often the link is followed.
    expect((await t.as(joiner).post(`/invite-links/${link.json().token}/join`)).statusCode).toBe(201);
    const rows = await k.rows(joiner.id);
    expect(rows).toEqual([{ type: 'reglament.mandatory', dedup_key: `reglament.mandatory:${mandatory.id}`, task_id: null }]);
    // The joiner reads it in the space's organization.
    expect((await t.as(joiner).patch('/user/organizations/active', { organizationId: owner.organizationId })).statusCode).toBe(200);
    const notes = await k.notes(joiner);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ type: 'reglament.mandatory', spaceId: space.id, actorId: joiner.id });
    expect(notes[0]!.text).toContain('Fire drill');
  });

  it('tells the members who have not passed it when it becomes mandatory, once', async () => {
    const { owner, space, reglament } = await r.world();
    const passed = await k.spaceMember(owner, space.id, 'reader');
    const pending = await k.spaceMember(owner, space.id, 'reader');
    expect((await t.as(passed).post(`/reglaments/${reglament.id}/passed-users`)).statusCode).toBe(201);
    for (const mandatory of [true, false, true]) {
      expect((await t.as(owner).patch(`/reglaments/${reglament.id}/mandatory`, { mandatory })).statusCode).toBe(200);
    }
    expect((await k.notes(pending)).map((n) => n.type)).toEqual(['reglament.mandatory']);
    expect(await k.notes(passed)).toEqual([]);
    expect(await k.notes(owner)).toEqual([]);
    expect((await k.createdEvents(pending)).map((e) => e.user_id)).toEqual([pending.id]);
  });

  it('settles a reglament event that says the reglament is optional from its payload alone', async () => {
    const { owner, space, reglament } = await r.world();
    const member = await k.spaceMember(owner, space.id, 'reader');
    // Setup shortcut: the row says mandatory, the event says optional; the event is believed.
    await t.sql(sql`update reglaments set mandatory = true where id = ${reglament.id}`);
    await systemWrite(t.app, owner.organizationId, async (ctx) =>
      emit(ctx.db, { type: 'reglament.updated', actorId: owner.id, payload: { id: reglament.id, mandatory: false } }),
    );
    expect(await k.notes(member)).toEqual([]);
  });
});

describe('webhook.disabled', () => {
  it('tells the webhook’s creator, once per disabling', async () => {
    const owner = await t.org();
    const hook = { id: 987654, url: 'https://example.test/hook', creatorId: owner.id, spaceId: null, projectId: null };
    for (let i = 0; i < 2; i++) {
      await systemWrite(t.app, owner.organizationId, async (ctx) => emit(ctx.db, { type: 'webhook.disabled', actorId: null, payload: hook }));
    }
    const notes = await k.notes(owner);
    expect(notes.map((n) => [n.type, n.actorId])).toEqual([
      ['webhook.disabled', null],
      ['webhook.disabled', null],
    ]);
    expect(notes[0]!.text).toContain('https://example.test/hook');
  });
});
