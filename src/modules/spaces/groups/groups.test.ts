import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { factories } from '../../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Group = { id: number; name: string; order: string; collapsed: boolean; spaceIds: number[] };
const groupsOf = async (user: TestUser) => (await t.as(user).get('/space-groups')).json() as Group[];
const sidebar = async (user: TestUser) =>
  ((await t.as(user).get('/spaces')).json() as Array<{ name: string; spaceGroupId: number | null; order: string }>).map((s) => [s.name, s.spaceGroupId, s.order]);
const createGroup = async (user: TestUser, body: Record<string, unknown>) => {
  const res = await t.as(user).post('/space-groups', body);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json() as Group;
};

/** An owner with spaces A, B, C (in that order). */
async function threeSpaces() {
  const owner = await t.org();
  const a = await f.space(owner, 'A');
  const b = await f.space(owner, 'B');
  const c = await f.space(owner, 'C');
  return { owner, a, b, c };
}

/** commonCases world for a route on one of the owner's groups: `self` role, so no 403 case. */
const groupWorld = (path: string, body?: unknown, badBody?: unknown) => async () => {
  const owner = await t.org();
  const group = await createGroup(owner, { name: 'G' });
  return { url: `/space-groups/${group.id}${path}`, owner, body, badBody };
};

describe('GET /space-groups and POST /space-groups', () => {
  it("creates folders at a position, with spaces in the given order, and lists only the caller's", async () => {
    const { owner, a, b, c } = await threeSpaces();
    const res = await t.as(owner).post('/space-groups', { name: ' Work ', spaceIds: [c.id, a.id] });
    expect(res.statusCode).toBe(201);
    const work = res.json();
    expect(work).toEqual({
      id: expect.any(Number),
      name: 'Work',
      order: '0',
      collapsed: false,
      spaceIds: [c.id, a.id],
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    const first = await createGroup(owner, { name: 'First', order: 0 });
    expect(first.order).toBe('0');
    const list = await t.as(owner).get('/space-groups');
    expect(list.statusCode).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect((list.json() as Group[]).map((g) => [g.name, g.order, g.spaceIds])).toEqual([
      ['First', '0', []],
      ['Work', '1', [c.id, a.id]],
    ]);
    expect(await sidebar(owner)).toEqual([
      ['B', null, '0'],
      ['C', work.id, '0'],
      ['A', work.id, '1'],
    ]);
    expect(b.id).toBeGreaterThan(0);
    expect(await groupsOf(await t.member(owner))).toEqual([]);
  });

  it('pages the list', async () => {
    const owner = await t.org();
    for (const name of ['1', '2', '3']) await createGroup(owner, { name });
    const res = await t.as(owner).get('/space-groups?limit=2');
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toBe('</space-groups?limit=2&offset=2>; rel="next"');
    expect((res.json() as Group[]).map((g) => g.name)).toEqual(['1', '2']);
  });

  it('refuses spaces the caller cannot read (400), creating nothing', async () => {
    const owner = await t.org();
    const mine = await f.space(owner);
    const colleague = await t.member(owner);
    const theirs = await f.space(colleague);
    const res = await t.as(colleague).post('/space-groups', { name: 'G', spaceIds: [theirs.id, mine.id] });
    const problem = expectProblem(res, 400, 'REFERENCE_NOT_FOUND');
    expect(problem.errors).toEqual([{ path: '/spaceIds/1', message: 'space not found' }]);
    expect(await groupsOf(colleague)).toEqual([]);
  });

  commonCases(t, 'POST /space-groups', {
    method: 'POST',
    setup: async () => ({ url: '/space-groups', owner: await t.org(), body: { name: 'G' }, badBody: { name: 'G', order: -1 } }),
  });
});

describe('PATCH /space-groups/:id/name, /collapsed, /order', () => {
  it('renames and collapses', async () => {
    const owner = await t.org();
    const group = await createGroup(owner, { name: 'Old' });
    const renamed = await t.as(owner).patch(`/space-groups/${group.id}/name`, { name: 'New' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: group.id, name: 'New', collapsed: false });
    const collapsed = await t.as(owner).patch(`/space-groups/${group.id}/collapsed`, { collapsed: true });
    expect(collapsed.statusCode).toBe(200);
    expect(collapsed.json()).toMatchObject({ name: 'New', collapsed: true });
  });

  it('moves a group among the caller’s groups, densely', async () => {
    const owner = await t.org();
    const [x, y, z] = [await createGroup(owner, { name: 'X' }), await createGroup(owner, { name: 'Y' }), await createGroup(owner, { name: 'Z' })];
    const res = await t.as(owner).patch(`/space-groups/${z!.id}/order`, { order: '0' });
    expect(res.statusCode).toBe(200);
    expect(res.json().order).toBe('0');
    expect((await groupsOf(owner)).map((g) => [g.name, g.order])).toEqual([['Z', '0'], ['X', '1'], ['Y', '2']]);
    await t.as(owner).patch(`/space-groups/${x!.id}/order`, { order: 5 });
    expect((await groupsOf(owner)).map((g) => [g.name, g.order])).toEqual([['Z', '0'], ['Y', '1'], ['X', '2']]);
    expect(y!.id).toBeGreaterThan(0);
  });

  it("answers 404 for another user's group of the same organization", async () => {
    const owner = await t.org();
    const group = await createGroup(owner, { name: 'Mine' });
    const colleague = await t.member(owner, 'admin');
    expectProblem(await t.as(colleague).patch(`/space-groups/${group.id}/name`, { name: 'Taken' }), 404, 'NOT_FOUND');
    expect((await groupsOf(owner))[0]!.name).toBe('Mine');
  });

  commonCases(t, 'PATCH /space-groups/:id/name', { method: 'PATCH', setup: groupWorld('/name', { name: 'N' }, { name: '   ' }) });
  commonCases(t, 'PATCH /space-groups/:id/collapsed', { method: 'PATCH', setup: groupWorld('/collapsed', { collapsed: true }, { collapsed: 1 }) });
  commonCases(t, 'PATCH /space-groups/:id/order', { method: 'PATCH', setup: groupWorld('/order', { order: 0 }, { order: 'top' }) });
});

describe('PATCH /space-groups/:id/spaces', () => {
  it('sets exactly the listed spaces in order; those left out go to the end of the ungrouped ones', async () => {
    const { owner, a, b, c } = await threeSpaces();
    const one = await createGroup(owner, { name: 'One', spaceIds: [a.id, b.id] });
    const two = await createGroup(owner, { name: 'Two' });
    const res = await t.as(owner).patch(`/space-groups/${two.id}/spaces`, { spaceIds: [b.id, c.id] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: two.id, spaceIds: [b.id, c.id] });
    expect(await sidebar(owner)).toEqual([
      ['A', one.id, '0'],
      ['B', two.id, '0'],
      ['C', two.id, '1'],
    ]);
    await t.as(owner).patch(`/space-groups/${one.id}/spaces`, { spaceIds: [] });
    expect(await sidebar(owner)).toEqual([
      ['A', null, '0'],
      ['B', two.id, '0'],
      ['C', two.id, '1'],
    ]);
  });

  it('takes in a space an organization admin never placed', async () => {
    const owner = await t.org();
    const space = await f.space(owner, 'Theirs');
    const admin = await t.member(owner, 'admin');
    const group = await createGroup(admin, { name: 'G' });
    const res = await t.as(admin).patch(`/space-groups/${group.id}/spaces`, { spaceIds: [space.id] });
    expect(res.json().spaceIds).toEqual([space.id]);
    expect(await sidebar(admin)).toEqual([['Theirs', group.id, '0']]);
  });

  commonCases(t, 'PATCH /space-groups/:id/spaces', {
    method: 'PATCH',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await createGroup(owner, { name: 'G' });
      return { url: `/space-groups/${group.id}/spaces`, owner, body: { spaceIds: [space.id] }, badBody: { spaceIds: [space.id, space.id] } };
    },
  });
});

describe('DELETE /space-groups/:id', () => {
  it('deletes the folder; its spaces become ungrouped after the others; groups stay dense', async () => {
    const { owner, a, b } = await threeSpaces();
    const keep = await createGroup(owner, { name: 'Keep' });
    const drop = await createGroup(owner, { name: 'Drop', spaceIds: [b.id, a.id] });
    const last = await createGroup(owner, { name: 'Last' });
    const res = await t.as(owner).delete(`/space-groups/${drop.id}`);
    expect(res.statusCode).toBe(204);
    expect(await sidebar(owner)).toEqual([
      ['C', null, '0'],
      ['B', null, '1'],
      ['A', null, '2'],
    ]);
    expect((await groupsOf(owner)).map((g) => [g.id, g.order])).toEqual([[keep.id, '0'], [last.id, '1']]);
    expectProblem(await t.as(owner).delete(`/space-groups/${drop.id}`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'DELETE /space-groups/:id', { method: 'DELETE', setup: groupWorld('') });
});
