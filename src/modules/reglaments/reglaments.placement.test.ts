import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { reglamentFactories } from './reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((x) => x.id);

describe('PATCH /reglaments/{reglamentId}/order', () => {
  it('moves within a group and into another group, renumbering both densely', async () => {
    const w = await r.world();
    const b = await r.reglament(w.owner, w.group.id, { name: 'B', order: 1 });
    const c = await r.reglament(w.owner, w.group.id, { name: 'C', order: 2 });
    const res = await t.as(w.owner).patch(`/reglaments/${c.id}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, order: '0', reglamentColumnId: w.group.id });
    expect(ids(await t.as(w.owner).get(`/spaces/${w.space.id}/reglaments`))).toEqual([c.id, w.reglament.id, b.id]);

    const other = await r.group(w.owner, w.space.id, 'Other');
    const moved = await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/order`, { order: '0', reglamentColumnId: other.id });
    expect(moved.json()).toMatchObject({ reglamentColumnId: other.id, order: '0' });
    const rows = await t.sql<{ reglament_id: number; reglament_group_id: number; order: number }>(
      sql`select reglament_id, reglament_group_id, "order" from reglament_spaces where space_id = ${w.space.id} order by reglament_group_id, "order"`,
    );
    expect(rows).toEqual([
      { reglament_id: c.id, reglament_group_id: w.group.id, order: 0 },
      { reglament_id: b.id, reglament_group_id: w.group.id, order: 1 },
      { reglament_id: w.reglament.id, reglament_group_id: other.id, order: 0 },
    ]);
  });

  it('refuses a group of a space that does not show the reglament with 400', async () => {
    const w = await r.world();
    const elsewhere = await r.group(w.owner, (await r.space(w.owner, 'Elsewhere')).id);
    expectProblem(await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/order`, { order: 0, reglamentColumnId: elsewhere.id }), 400, 'REFERENCE_NOT_FOUND');
  });

  commonCases(t, 'PATCH /reglaments/{reglamentId}/order', {
    method: 'PATCH',
    setup: async () => {
      const w = await r.world();
      await r.reglament(w.owner, w.group.id, { order: 1 });
      return { url: `/reglaments/${w.reglament.id}/order`, owner: w.owner, body: { order: 1 }, badBody: { order: -1 }, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
});

describe('reglament in a second space', () => {
  it('adds it to another space (its first group by default) and removes it again', async () => {
    const w = await r.world();
    const second = await r.space(w.owner, 'Second');
    const g2 = await r.group(w.owner, second.id, 'Main');
    const res = await t.as(w.owner).post(`/reglaments/${w.reglament.id}/spaces`, { spaceId: second.id });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ id: w.reglament.id, spaceIds: [w.space.id, second.id], reglamentColumnId: w.group.id });
    const listed = (await t.as(w.owner).get(`/spaces/${second.id}/reglaments`)).json();
    expect(listed).toMatchObject([{ id: w.reglament.id, reglamentColumnId: g2.id, order: '0' }]);
    // A reader of the second space only now reads it.
    const reader = await r.spaceMember(w.owner, second.id, 'reader');
    expect((await t.as(reader).get(`/reglaments/${w.reglament.id}`)).statusCode).toBe(200);

    expectProblem(await t.as(w.owner).post(`/reglaments/${w.reglament.id}/spaces`, { spaceId: second.id }), 409, 'CONFLICT');
    const removed = await t.as(w.owner).delete(`/reglaments/${w.reglament.id}/spaces/${second.id}`);
    expect(removed.statusCode).toBe(204);
    expect((await t.as(w.owner).get(`/spaces/${second.id}/reglaments`)).json()).toEqual([]);
    expectProblem(await t.as(reader).get(`/reglaments/${w.reglament.id}`), 404);
    const actions = await t.sql<{ action: string }>(sql`select action from reglament_events where reglament_id = ${w.reglament.id} order by id`);
    expect(actions.map((a) => a.action)).toEqual(['created', 'space-added', 'space-removed']);
  });

  it('refuses to remove the home space with 400', async () => {
    const w = await r.world();
    expectProblem(await t.as(w.owner).delete(`/reglaments/${w.reglament.id}/spaces/${w.space.id}`), 400, 'BAD_REQUEST');
  });

  it('needs editor in the target space too', async () => {
    const w = await r.world();
    const second = await r.space(w.owner, 'Second');
    await r.group(w.owner, second.id);
    const editor = await r.spaceMember(w.owner, w.space.id, 'editor');
    await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${w.owner.organizationId}, ${second.id}, ${editor.id}, 'reader')`);
    expectProblem(await t.as(editor).post(`/reglaments/${w.reglament.id}/spaces`, { spaceId: second.id }), 403, 'FORBIDDEN');
  });

  commonCases(t, 'POST /reglaments/{reglamentId}/spaces', {
    method: 'POST',
    setup: async () => {
      const w = await r.world();
      const second = await r.space(w.owner, 'Second');
      await r.group(w.owner, second.id);
      return { url: `/reglaments/${w.reglament.id}/spaces`, owner: w.owner, body: { spaceId: second.id }, badBody: { spaceId: 'x' }, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });

  commonCases(t, 'DELETE /reglaments/{reglamentId}/spaces/{spaceId}', {
    method: 'DELETE',
    setup: async () => {
      const w = await r.world();
      const second = await r.space(w.owner, 'Second');
      await r.group(w.owner, second.id);
      await t.as(w.owner).post(`/reglaments/${w.reglament.id}/spaces`, { spaceId: second.id });
      return { url: `/reglaments/${w.reglament.id}/spaces/${second.id}`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'reader') };
    },
  });
});

describe('GET /reglaments/search', () => {
  it('finds by words in name and content, best match first, only in readable spaces, drafts for editors only', async () => {
    const w = await r.world({ name: 'Onboarding', content: '<p>The zebracrossing rule</p>' });
    const strong = await r.reglament(w.owner, w.group.id, { name: 'Zebracrossing', content: 'zebracrossing zebracrossing, always', order: 1 });
    const draft = await r.reglament(w.owner, w.group.id, { name: 'Draft zebracrossing', draft: true, order: 2 });
    const hidden = await r.space(w.owner, 'Hidden');
    await r.reglament(w.owner, (await r.group(w.owner, hidden.id)).id, { name: 'zebracrossing hidden' });
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');

    const res = await t.as(reader).get('/reglaments/search?q=zebracrossing');
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([strong.id, w.reglament.id]);
    expect(res.headers['x-total-count']).toBe('2');
    expect(Object.keys(res.json()[0]).sort()).toEqual(['content', 'createdAt', 'creator', 'draft', 'id', 'name', 'order', 'reglamentColumnId', 'updatedAt', 'usersPassed']);

    const editor = await r.spaceMember(w.owner, w.space.id, 'editor');
    expect(ids(await t.as(editor).get(`/reglaments/search?q=zebracrossing&spaceId=${w.space.id}&draft=true`))).toEqual([draft.id]);
    expect(ids(await t.as(reader).get('/reglaments/search?q=zebracrossing&draft=true'))).toEqual([]);
    expect(ids(await t.as(reader).get(`/reglaments/search?q=zebracrossing&spaceId=${hidden.id}`))).toEqual([]);
    expect(ids(await t.as(reader).get('/reglaments/search?q="always zebracrossing" -nothing'))).toEqual([]);
    expect(ids(await t.as(reader).get(`/reglaments/search?q=${encodeURIComponent("'); drop table reglaments; --")}`))).toEqual([]);
  });

  commonCases(t, 'GET /reglaments/search', {
    method: 'GET',
    setup: async () => {
      const w = await r.world();
      return { url: '/reglaments/search?q=helmet', owner: w.owner };
    },
  });

  it('answers 400 without q', async () => {
    const owner = await t.org();
    expectProblem(await t.as(owner).get('/reglaments/search'), 400, 'VALIDATION_FAILED');
  });
});
