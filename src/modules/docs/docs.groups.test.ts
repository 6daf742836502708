import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { docsFactories } from './docs.fixtures.js';

const t = useTestApp();
const f = docsFactories(t);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('documentation groups', () => {
  it('creates a group (201) at the end, or at a given order renumbering the others', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const res = await t.as(owner).post(`/spaces/${space.id}/documentation-groups`, { name: ' Guides ' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      spaceId: space.id,
      name: 'Guides',
      order: '0',
      pages: [],
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    const first = (await t.as(owner).post(`/spaces/${space.id}/documentation-groups`, { name: 'First', order: '0' })).json();
    expect(first.order).toBe('0');
    const list = await t.as(owner).get(`/spaces/${space.id}/documentation-groups`);
    expect(list.json().map((g: { name: string; order: string }) => [g.name, g.order])).toEqual([['First', '0'], ['Guides', '1']]);
  });

  it('lists groups with their page trees in order; archived pages only with archived=true', async () => {
    const { owner, space, group, page } = await f.docs();
    const child = await f.page(owner, space.id, group.id, { name: 'Child', parentPageId: page.id });
    const grandchild = await f.page(owner, space.id, group.id, { name: 'Grandchild', parentPageId: child.id, icon: '🌱' });
    const second = await f.page(owner, space.id, group.id, { name: 'Second' });
    await t.as(owner).patch(`/pages/${page.id}/collapsed`, { collapsed: true });
    await t.as(owner).patch(`/pages/${second.id}/archive`);
    const node = (id: number, name: string, order: string, extra: Record<string, unknown> = {}) => ({
      id, name, icon: null, order, archived: false, collapsed: false, children: [], ...extra,
    });
    const res = await t.as(owner).get(`/spaces/${space.id}/documentation-groups`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('1');
    expect(res.json()[0].pages).toEqual([
      node(page.id, 'Start', '0', { collapsed: true, children: [node(child.id, 'Child', '0', { children: [node(grandchild.id, 'Grandchild', '0', { icon: '🌱' })] })] }),
    ]);
    const archived = await t.as(owner).get(`/spaces/${space.id}/documentation-groups?archived=true`);
    expect(archived.json()[0].pages.map((p: { id: number; archived: boolean }) => [p.id, p.archived])).toEqual([[page.id, false], [second.id, true]]);
  });

  it('pages the groups with limit/offset, X-Total-Count and Link', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    for (const name of ['A', 'B', 'C']) await f.group(owner, space.id, name);
    const res = await t.as(owner).get(`/spaces/${space.id}/documentation-groups?limit=2`);
    expect(res.json().map((g: { name: string }) => g.name)).toEqual(['A', 'B']);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toContain('offset=2');
  });

  it('renames a group', async () => {
    const { owner, space, group } = await f.docs();
    const res = await t.as(owner).patch(`/spaces/${space.id}/documentation-groups/${group.id}/name`, { name: 'Renamed' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: group.id, name: 'Renamed', pages: [expect.objectContaining({ name: 'Start' })] });
  });

  it('refuses to delete a group holding pages, archived ones too (400 GROUP_NOT_EMPTY), then deletes it once empty (204)', async () => {
    const { owner, space, group, page } = await f.docs();
    const other = await f.group(owner, space.id, 'Other');
    await t.as(owner).patch(`/pages/${page.id}/archive`);
    expectProblem(await t.as(owner).delete(`/spaces/${space.id}/documentation-groups/${group.id}`), 400, 'GROUP_NOT_EMPTY');
    expect(await t.sql(sql`select id from documentation_groups where id = ${group.id}`)).toHaveLength(1);
    expect((await t.as(owner).delete(`/pages/${page.id}`)).statusCode).toBe(204);
    const res = await t.as(owner).delete(`/spaces/${space.id}/documentation-groups/${group.id}`);
    expect(res.statusCode).toBe(204);
    expect(await t.sql(sql`select id from documentation_groups where id = ${group.id}`)).toHaveLength(0);
    // The remaining group closes the gap.
    const [row] = await t.sql<{ order: number }>(sql`select "order" from documentation_groups where id = ${other.id}`);
    expect(row!.order).toBe(0);
  });

  it('goes away with its space: deleting a space with groups and nested pages succeeds', async () => {
    const { owner, space, group, page } = await f.docs();
    await f.page(owner, space.id, group.id, { parentPageId: page.id });
    expect((await t.as(owner).delete(`/spaces/${space.id}`)).statusCode).toBe(204);
    expect(await t.sql(sql`select id from pages where space_id = ${space.id}`)).toHaveLength(0);
    expect(await t.sql(sql`select id from documentation_groups where space_id = ${space.id}`)).toHaveLength(0);
  });

  it("answers 404 for a group of another space in the path", async () => {
    const { owner, group } = await f.docs();
    const otherSpace = await f.space(owner, 'Other');
    expectProblem(await t.as(owner).patch(`/spaces/${otherSpace.id}/documentation-groups/${group.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'GET /spaces/{id}/documentation-groups', {
    method: 'GET',
    async setup() {
      const { owner, space } = await f.docs();
      return { url: `/spaces/${space.id}/documentation-groups`, owner };
    },
  });

  commonCases(t, 'POST /spaces/{id}/documentation-groups', {
    method: 'POST',
    async setup() {
      const { owner, space } = await f.docs();
      return { url: `/spaces/${space.id}/documentation-groups`, owner, body: { name: 'New' }, badBody: { name: 7 }, forbidden: await f.spaceMember(owner, space.id, 'member') };
    },
  });

  commonCases(t, 'PATCH /spaces/{id}/documentation-groups/{id}/name', {
    method: 'PATCH',
    async setup() {
      const { owner, space, group } = await f.docs();
      return {
        url: `/spaces/${space.id}/documentation-groups/${group.id}/name`,
        owner,
        body: { name: 'New' },
        badBody: { name: '   ' },
        forbidden: await f.spaceMember(owner, space.id, 'reader'),
      };
    },
  });

  commonCases(t, 'DELETE /spaces/{id}/documentation-groups/{id}', {
    method: 'DELETE',
    async setup() {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await f.group(owner, space.id);
      return { url: `/spaces/${space.id}/documentation-groups/${group.id}`, owner, forbidden: await f.spaceMember(owner, space.id, 'member') };
    },
  });
});
