import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles } from '../../stages/stages.fixtures.js';

const t = useTestApp();
const GROUP_KEYS = ['createdAt', 'id', 'name', 'order', 'spaceId', 'updatedAt'];

async function group(owner: TestUser, spaceId: number, name: string, order?: number) {
  const res = await t.as(owner).post(`/spaces/${spaceId}/project-groups`, order === undefined ? { name } : { name, order });
  if (res.statusCode !== 201) throw new Error(`group: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; order: string };
}

async function groupOrder(spaceId: number) {
  const rows = await t.sql<{ id: number; order: number }>(sql`select id, "order" from project_groups where space_id = ${spaceId} order by "order", id`);
  return rows.map((r) => [Number(r.id), r.order]);
}

describe('create a project group', () => {
  it('creates groups at the end or at the given order', async () => {
    const b = await boardWithRoles(t, 0);
    const res = await t.as(b.owner).post(`/spaces/${b.space.id}/project-groups`, { name: ' Team A ' });
    expect(res.statusCode).toBe(201);
    const a = res.json();
    expect(Object.keys(a).sort()).toEqual(GROUP_KEYS);
    expect(a).toMatchObject({ spaceId: b.space.id, name: 'Team A', order: '0' });
    const first = await group(b.owner, b.space.id, 'First', 0);
    expect(first.order).toBe('0');
    expect(await groupOrder(b.space.id)).toEqual([[first.id, 0], [a.id, 1]]);
    // The space's full form lists them too.
    expect((await t.as(b.reader).get(`/spaces/${b.space.id}`)).json().projectGroups.map((g: { id: number }) => g.id)).toEqual([first.id, a.id]);
  });

  commonCases(t, 'POST /spaces/{id}/project-groups', {
    method: 'POST',
    async setup() {
      const b = await boardWithRoles(t, 0);
      return { url: `/spaces/${b.space.id}/project-groups`, owner: b.owner, body: { name: 'G' }, badBody: { name: 'G', order: -2 }, forbidden: b.member };
    },
  });
});

describe('rename and move a project group', () => {
  it('renames a group', async () => {
    const b = await boardWithRoles(t, 0);
    const g = await group(b.owner, b.space.id, 'Old');
    const res = await t.as(b.owner).patch(`/spaces/${b.space.id}/project-groups/${g.id}/name`, { name: 'New' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: g.id, name: 'New', order: '0', spaceId: b.space.id });
  });

  it('moves a group among the space’s groups', async () => {
    const b = await boardWithRoles(t, 0);
    const [g1, g2, g3] = [await group(b.owner, b.space.id, '1'), await group(b.owner, b.space.id, '2'), await group(b.owner, b.space.id, '3')];
    const res = await t.as(b.owner).patch(`/spaces/${b.space.id}/project-groups/${g3.id}/order`, { order: '0' });
    expect(res.statusCode).toBe(200);
    expect(res.json().order).toBe('0');
    expect(await groupOrder(b.space.id)).toEqual([[g3.id, 0], [g1.id, 1], [g2.id, 2]]);
  });

  it('answers 404 for a group of another space', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const g = await group(b.owner, other.id, 'Elsewhere');
    expectProblem(await t.as(b.owner).patch(`/spaces/${b.space.id}/project-groups/${g.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'PATCH /spaces/{id}/project-groups/{id}/name', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const g = await group(b.owner, b.space.id, 'G');
      return { url: `/spaces/${b.space.id}/project-groups/${g.id}/name`, owner: b.owner, body: { name: 'H' }, badBody: { name: '' }, forbidden: b.reader };
    },
  });

  commonCases(t, 'PATCH /spaces/{id}/project-groups/{id}/order', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      await group(b.owner, b.space.id, 'F');
      const g = await group(b.owner, b.space.id, 'G');
      return { url: `/spaces/${b.space.id}/project-groups/${g.id}/order`, owner: b.owner, body: { order: 0 }, badBody: { order: 'first' }, forbidden: b.member };
    },
  });
});

describe('delete a project group', () => {
  it('deletes it; its projects join the end of the ungrouped list in their order', async () => {
    const b = await boardWithRoles(t, 0);
    const g = await group(b.owner, b.space.id, 'G');
    const keep = await group(b.owner, b.space.id, 'Keep');
    const p1 = await b.f.project(b.owner, b.space.id, 'In 1');
    const p2 = await b.f.project(b.owner, b.space.id, 'In 2');
    for (const p of [p1, p2]) expect((await t.as(b.owner).patch(`/projects/${p.id}/group`, { projectGroupId: g.id })).statusCode).toBe(200);

    const res = await t.as(b.owner).delete(`/spaces/${b.space.id}/project-groups/${g.id}`);
    expect(res.statusCode).toBe(204);
    const list = (await t.as(b.owner).get(`/spaces/${b.space.id}/projects`)).json() as Array<{ id: number; order: string; projectGroupId: number | null }>;
    expect(list.map((p) => [p.id, p.projectGroupId, p.order])).toEqual([
      [b.project.id, null, '0'],
      [p1.id, null, '1'],
      [p2.id, null, '2'],
    ]);
    expect(await groupOrder(b.space.id)).toEqual([[keep.id, 0]]);
  });

  commonCases(t, 'DELETE /spaces/{id}/project-groups/{id}', {
    method: 'DELETE',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const g = await group(b.owner, b.space.id, 'G');
      await t.as(b.owner).patch(`/projects/${b.project.id}/group`, { projectGroupId: g.id });
      return { url: `/spaces/${b.space.id}/project-groups/${g.id}`, owner: b.owner, forbidden: b.member };
    },
  });
});
