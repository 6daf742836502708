import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { ISO_MS, expectShape, reglamentFactories } from '../reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

const groupsOf = (spaceId: number) =>
  t.sql<{ id: number; name: string; order: number }>(sql`select id, name, "order" from reglament_groups where space_id = ${spaceId} order by "order"`);

describe('reglament groups', () => {
  it('creates at a position, renames and reorders, keeping positions dense', async () => {
    const owner = await t.org();
    const space = await r.space(owner);
    const a = await r.group(owner, space.id, 'A');
    expectShape(a, { id: 'integer', spaceId: 'integer', name: 'string', order: 'string', createdAt: 'string', updatedAt: 'string' });
    expect(a).toMatchObject({ spaceId: space.id, name: 'A', order: '0' });
    expect(a.createdAt).toMatch(ISO_MS);
    const b = await r.group(owner, space.id, 'B', 0);
    expect(b.order).toBe('0');
    const renamed = await t.as(owner).patch(`/spaces/${space.id}/reglament-groups/${a.id}/name`, { name: 'Alpha' });
    expect(renamed.json()).toMatchObject({ id: a.id, name: 'Alpha', order: '1' });
    const moved = await t.as(owner).patch(`/spaces/${space.id}/reglament-groups/${a.id}/order`, { order: 0 });
    expect(moved.json()).toMatchObject({ id: a.id, order: '0' });
    expect(await groupsOf(space.id)).toEqual([{ id: a.id, name: 'Alpha', order: 0 }, { id: b.id, name: 'B', order: 1 }]);
  });

  it('deletes an empty group; a non-empty one only with moveTo, which appends its reglaments there', async () => {
    const w = await r.world();
    const other = await r.group(w.owner, w.space.id, 'Other');
    const staying = await r.reglament(w.owner, other.id, { name: 'Staying' });
    const base = `/spaces/${w.space.id}/reglament-groups`;
    expectProblem(await t.as(w.owner).delete(`${base}/${w.group.id}`), 400, 'GROUP_NOT_EMPTY');
    expect((await t.as(w.owner).delete(`${base}/${w.group.id}?moveTo=${other.id}`)).statusCode).toBe(204);
    const list = (await t.as(w.owner).get(`/spaces/${w.space.id}/reglaments`)).json();
    expect(list.map((x: { id: number; reglamentColumnId: number; order: string }) => [x.id, x.reglamentColumnId, x.order])).toEqual([
      [staying.id, other.id, '0'],
      [w.reglament.id, other.id, '1'],
    ]);
    expect(await groupsOf(w.space.id)).toEqual([{ id: other.id, name: 'Other', order: 0 }]);
    const empty = await r.group(w.owner, w.space.id, 'Empty');
    expect((await t.as(w.owner).delete(`${base}/${empty.id}`)).statusCode).toBe(204);
  });

  it('deleting a space takes its groups and reglaments with it', async () => {
    const w = await r.world();
    expect((await t.as(w.owner).delete(`/spaces/${w.space.id}`)).statusCode).toBe(204);
    expect(await t.sql(sql`select id from reglaments where id = ${w.reglament.id}`)).toEqual([]);
  });

  const world = async () => {
    const w = await r.world();
    return { ...w, base: `/spaces/${w.space.id}/reglament-groups`, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
  };

  commonCases(t, 'POST /spaces/{spaceId}/reglament-groups', {
    method: 'POST',
    setup: async () => {
      const w = await world();
      return { url: w.base, owner: w.owner, body: { name: 'G' }, badBody: { name: '' }, forbidden: w.forbidden };
    },
  });
  commonCases(t, 'PATCH /spaces/{spaceId}/reglament-groups/{groupId}/name', {
    method: 'PATCH',
    setup: async () => {
      const w = await world();
      return { url: `${w.base}/${w.group.id}/name`, owner: w.owner, body: { name: 'G' }, badBody: { name: null }, forbidden: w.forbidden };
    },
  });
  commonCases(t, 'PATCH /spaces/{spaceId}/reglament-groups/{groupId}/order', {
    method: 'PATCH',
    setup: async () => {
      const w = await world();
      await r.group(w.owner, w.space.id, 'Second');
      return { url: `${w.base}/${w.group.id}/order`, owner: w.owner, body: { order: 1 }, badBody: { order: -2 }, forbidden: w.forbidden };
    },
  });
  commonCases(t, 'DELETE /spaces/{spaceId}/reglament-groups/{groupId}', {
    method: 'DELETE',
    setup: async () => {
      const w = await world();
      const empty = await r.group(w.owner, w.space.id, 'Empty');
      return { url: `${w.base}/${empty.id}`, owner: w.owner, forbidden: w.forbidden };
    },
  });
});
