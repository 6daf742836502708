import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { blobCount, multipart } from '../files/files.fixtures.js';
import { docsFactories } from './docs.fixtures.js';

const t = useTestApp();
const f = docsFactories(t);

type Row = { id: number; group: number; parent: number | null; order: number; archived: boolean };
const rows = (spaceId: number) =>
  t.sql<Row>(sql`select id, documentation_group_id as "group", parent_page_id as parent, "order", archived_at is not null as archived
                 from pages where space_id = ${spaceId} order by id`);

/** A tree: root(a(a1), b), plus a second group. */
async function world() {
  const { owner, space, group, page: root } = await f.docs();
  const a = await f.page(owner, space.id, group.id, { name: 'A', parentPageId: root.id, content: 'a' });
  const a1 = await f.page(owner, space.id, group.id, { name: 'A1', parentPageId: a.id });
  const b = await f.page(owner, space.id, group.id, { name: 'B', parentPageId: root.id });
  const other = await f.group(owner, space.id, 'Other');
  return { owner, space, group, root, a, a1, b, other };
}

describe('move and nest', () => {
  it('moves a page among its siblings, renumbering densely', async () => {
    const w = await world();
    const res = await t.as(w.owner).patch(`/pages/${w.b.id}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: w.b.id, order: '0', parentPageId: w.root.id });
    const byId = new Map((await rows(w.space.id)).map((r) => [r.id, r]));
    expect(byId.get(w.a.id)!.order).toBe(1);
  });

  it('moves a page with its subtree to the top level of another group', async () => {
    const w = await world();
    const res = await t.as(w.owner).patch(`/pages/${w.a.id}/order`, { order: '0', documentationGroupId: w.other.id });
    expect(res.json()).toMatchObject({ id: w.a.id, documentationGroupId: w.other.id, parentPageId: null, order: '0' });
    const byId = new Map((await rows(w.space.id)).map((r) => [r.id, r]));
    expect(byId.get(w.a1.id)).toMatchObject({ group: w.other.id, parent: w.a.id });
    expect(byId.get(w.b.id)!.order).toBe(0);
  });

  it('nests a page under another one (moving its subtree into that group) and back to the top level', async () => {
    const w = await world();
    const target = await f.page(w.owner, w.space.id, w.other.id, { name: 'Target' });
    const res = await t.as(w.owner).patch(`/pages/${w.a.id}/parent`, { parentPageId: target.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: w.a.id, parentPageId: target.id, documentationGroupId: w.other.id, order: '0' });
    expect((await rows(w.space.id)).find((r) => r.id === w.a1.id)!.group).toBe(w.other.id);
    const top = await t.as(w.owner).patch(`/pages/${w.a.id}/parent`, { parentPageId: null, order: 0 });
    expect(top.json()).toMatchObject({ parentPageId: null, documentationGroupId: w.other.id, order: '0' });
  });

  it('refuses to nest a page under itself or its descendant (400) and changes nothing', async () => {
    const w = await world();
    const before = await rows(w.space.id);
    for (const parentPageId of [w.root.id, w.a1.id]) {
      const res = await t.as(w.owner).patch(`/pages/${w.root.id}/parent`, { parentPageId });
      const problem = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: '/parentPageId', message: expect.any(String) }]);
    }
    expect(await rows(w.space.id)).toEqual(before);
  });

  it('refuses a parent in another space (400 REFERENCE_NOT_FOUND)', async () => {
    const w = await world();
    const otherSpace = await f.space(w.owner, 'Elsewhere');
    const g = await f.group(w.owner, otherSpace.id);
    const foreign = await f.page(w.owner, otherSpace.id, g.id);
    expectProblem(await t.as(w.owner).patch(`/pages/${w.a.id}/parent`, { parentPageId: foreign.id }), 400, 'REFERENCE_NOT_FOUND');
  });

  commonCases(t, 'PATCH /pages/{id}/order', {
    method: 'PATCH',
    async setup() {
      const w = await world();
      return { url: `/pages/${w.b.id}/order`, owner: w.owner, body: { order: 0 }, badBody: { order: -1 }, forbidden: await f.spaceMember(w.owner, w.space.id, 'member') };
    },
  });

  commonCases(t, 'PATCH /pages/{id}/parent', {
    method: 'PATCH',
    async setup() {
      const w = await world();
      return { url: `/pages/${w.b.id}/parent`, owner: w.owner, body: { parentPageId: w.a.id }, badBody: { parentPageId: 'x' }, forbidden: await f.spaceMember(w.owner, w.space.id, 'reader') };
    },
  });
});

describe('duplicate', () => {
  it('copies a page right after the original, alone or with its unarchived subtree', async () => {
    const w = await world();
    await t.as(w.owner).patch(`/pages/${w.b.id}/archive`);
    // The body is optional.
    const alone = await t.as(w.owner).post(`/pages/${w.a.id}/duplicate`);
    expect(alone.statusCode).toBe(201);
    expect(alone.json()).toMatchObject({ name: 'A (copy)', parentPageId: w.root.id, order: '1', content: 'a', version: 1, public: false, creatorId: w.owner.id });
    expect((await rows(w.space.id)).filter((r) => r.parent === alone.json().id)).toHaveLength(0);

    const deep = await t.as(w.owner).post(`/pages/${w.root.id}/duplicate`, { withChildren: true });
    expect(deep.statusCode).toBe(201);
    const copy = deep.json();
    expect(copy).toMatchObject({ name: 'Start (copy)', parentPageId: null, order: '1', content: '<p>hello</p>' });
    const tree = (await t.as(w.owner).get(`/spaces/${w.space.id}/documentation-groups`)).json()[0].pages;
    const copied = tree.find((p: { id: number }) => p.id === copy.id);
    // A, its copy and A1 come along; the archived B does not.
    expect(copied.children.map((c: { name: string; order: string; children: unknown[] }) => [c.name, c.order, c.children.length])).toEqual([
      ['A', '0', 1],
      ['A (copy)', '1', 0],
    ]);
  });

  commonCases(t, 'POST /pages/{id}/duplicate', {
    method: 'POST',
    async setup() {
      const w = await world();
      return { url: `/pages/${w.a.id}/duplicate`, owner: w.owner, body: { withChildren: true }, badBody: { withChildren: 'yes' }, forbidden: await f.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
});

describe('archive, restore, delete', () => {
  it('archives and restores a page with its subtree', async () => {
    const w = await world();
    const res = await t.as(w.owner).patch(`/pages/${w.a.id}/archive`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: w.a.id, archived: true });
    const archived = (await rows(w.space.id)).filter((r) => r.archived).map((r) => r.id);
    expect(archived).toEqual([w.a.id, w.a1.id]);
    const restored = await t.as(w.owner).patch(`/pages/${w.a.id}/restore`);
    expect(restored.json()).toMatchObject({ id: w.a.id, archived: false, parentPageId: w.root.id, order: '0' });
    expect((await rows(w.space.id)).some((r) => r.archived)).toBe(false);
  });

  it('restores a page whose parent is still archived to the top level of its group', async () => {
    const w = await world();
    await t.as(w.owner).patch(`/pages/${w.root.id}/archive`);
    const res = await t.as(w.owner).patch(`/pages/${w.a.id}/restore`);
    expect(res.json()).toMatchObject({ id: w.a.id, archived: false, parentPageId: null, order: '1' });
  });

  it('deletes a page with its subtree (204) and the files only they used', async () => {
    const w = await world();
    const upload = async (user: TestUser, pageId: number) => {
      const body = multipart([{ name: 'files[]', data: `file of ${pageId}`, filename: 'f.txt' }]);
      return (await t.as(user).request('POST', `/pages/${pageId}/files`, body.payload, body.headers)).json()[0] as { id: number };
    };
    const own = await upload(w.owner, w.a1.id);
    const kept = await upload(w.owner, w.b.id);
    const blobs = await blobCount(t);
    const res = await t.as(w.owner).delete(`/pages/${w.a.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await rows(w.space.id)).map((r) => r.id)).toEqual([w.root.id, w.b.id]);
    expect(await t.sql(sql`select id from files where id = ${own.id}`)).toHaveLength(0);
    expect(await t.sql(sql`select id from files where id = ${kept.id}`)).toHaveLength(1);
    expect(await blobCount(t)).toBe(blobs - 1);
    expect((await rows(w.space.id)).find((r) => r.id === w.b.id)!.order).toBe(0);
  });

  for (const [method, path] of [
    ['PATCH', 'archive'],
    ['PATCH', 'restore'],
    ['DELETE', ''],
  ] as const) {
    commonCases(t, `${method} /pages/{id}/${path}`, {
      method,
      async setup() {
        const w = await world();
        return { url: `/pages/${w.a.id}${path ? `/${path}` : ''}`, owner: w.owner, forbidden: await f.spaceMember(w.owner, w.space.id, 'member') };
      },
    });
  }
});
