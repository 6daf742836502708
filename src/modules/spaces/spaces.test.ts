import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Space = { id: number; name: string; order: string; favorite: boolean; spaceGroupId: number | null; role: string };
const list = async (user: TestUser, query = '') => (await t.as(user).get(`/spaces${query}`)).json() as Space[];
const orderOf = async (user: TestUser) => (await list(user)).map((s) => [s.name, s.order]);

describe('GET /spaces', () => {
  it("lists the caller's spaces with its role, order and flags; paging headers", async () => {
    const owner = await t.org();
    const a = await f.space(owner, 'A');
    await f.space(owner, 'B');
    await f.space(owner, 'C');
    const res = await t.as(owner).get('/spaces?limit=2');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toBe('</spaces?limit=2&offset=2>; rel="next"');
    const body = res.json() as Space[];
    expect(body.map((s) => s.name)).toEqual(['A', 'B']);
    expect(body[0]).toEqual({
      id: a.id,
      name: 'A',
      icon: null,
      iconColor: null,
      background: null,
      customBackground: null,
      archived: false,
      archivedAt: null,
      introReglamentId: null,
      membersCount: 1,
      creatorId: owner.id,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      role: 'admin',
      favorite: false,
      order: '0',
      spaceGroupId: null,
    });
    const next = await t.as(owner).get('/spaces?limit=2&offset=2');
    expect((next.json() as Space[]).map((s) => s.name)).toEqual(['C']);
    expect(next.headers.link).toBeUndefined();
  });

  it('shows a space member only its spaces, with its space role', async () => {
    const owner = await t.org();
    const shared = await f.space(owner, 'Shared');
    await f.space(owner, 'Private');
    const reader = await f.spaceMember(owner, shared.id, 'reader');
    const body = await list(reader);
    expect(body.map((s) => [s.name, s.role, s.order])).toEqual([['Shared', 'reader', '0']]);
    const stranger = await t.org();
    expect(await list(stranger)).toEqual([]);
  });

  it('filters archived (default: active only) and favourite spaces', async () => {
    const owner = await t.org();
    const a = await f.space(owner, 'Active');
    const b = await f.space(owner, 'Archived');
    expect((await t.as(owner).patch(`/spaces/${b.id}/archive`)).statusCode).toBe(200);
    expect((await t.as(owner).patch(`/spaces/${a.id}/favorite`, { favorite: true })).statusCode).toBe(200);
    expect((await list(owner)).map((s) => s.name)).toEqual(['Active']);
    expect((await list(owner, '?archived=true')).map((s) => s.name)).toEqual(['Archived']);
    expect((await list(owner, '?favorite=true')).map((s) => s.name)).toEqual(['Active']);
    expect((await list(owner, '?favorite=false')).map((s) => s.name)).toEqual([]);
    expect((await list(owner, '?archived=true&favorite=false')).map((s) => s.name)).toEqual(['Archived']);
  });

  it('gives an organization admin every space, unjoined ones after its own', async () => {
    const owner = await t.org();
    await f.space(owner, 'First');
    await f.space(owner, 'Second');
    const admin = await t.member(owner, 'admin');
    await f.space(admin, 'Own');
    const body = await list(admin);
    expect(body.map((s) => [s.name, s.role, s.order])).toEqual([
      ['Own', 'admin', '0'],
      ['First', 'admin', '1'],
      ['Second', 'admin', '2'],
    ]);
  });

  it('answers 400 to a bad query and 401 without a credential', async () => {
    const owner = await t.org();
    expectProblem(await t.as(owner).get('/spaces?limit=0'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(owner).get('/spaces?archived=maybe'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(null).get('/spaces'), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /spaces and GET /spaces/:id', () => {
  it('creates a space (caller admin, last in its sidebar) and reads it in full', async () => {
    const owner = await t.org();
    await f.space(owner, 'Before');
    const res = await t.as(owner).post('/spaces', { name: '  Team  ', icon: '🚀', iconColor: '#AA00FF', background: 'aurora' });
    expect(res.statusCode).toBe(201);
    const space = res.json();
    expect(space).toMatchObject({ name: 'Team', icon: '🚀', iconColor: '#AA00FF', background: 'aurora', role: 'admin', order: '1', membersCount: 1 });
    expect(space).toMatchObject({ projectGroups: [], reglamentGroups: [], documentationGroups: [], inviteLink: null });
    const get = await t.as(owner).get(`/spaces/${space.id}`);
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual(space);
  });

  it('reads in full the project, reglament and documentation groups of the space, each list by position', async () => {
    const owner = await t.org();
    const space = await f.space(owner, 'Grouped');
    const as = t.as(owner);
    const made: Record<string, Array<{ id: number; name: string }>> = {};
    for (const [key, path] of [['projectGroups', 'project-groups'], ['reglamentGroups', 'reglament-groups'], ['documentationGroups', 'documentation-groups']] as const) {
      const second = (await as.post(`/spaces/${space.id}/${path}`, { name: `${path} b` })).json();
      const first = (await as.post(`/spaces/${space.id}/${path}`, { name: `${path} a`, order: '0' })).json();
      made[key] = [first, second];
    }
    const full = (await as.get(`/spaces/${space.id}`)).json();
    for (const key of ['projectGroups', 'reglamentGroups', 'documentationGroups']) {
      expect(full[key]).toEqual(made[key]!.map((g, i) => ({ id: g.id, name: g.name, order: String(i) })));
    }
  });

  it('shows the invite link in the full form to admins only', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'member' });
    const editor = await f.spaceMember(owner, space.id, 'editor');
    expect((await t.as(owner).get(`/spaces/${space.id}`)).json().inviteLink).toMatchObject({ role: 'member', enabled: true });
    const asEditor = await t.as(editor).get(`/spaces/${space.id}`);
    expect(asEditor.statusCode).toBe(200);
    expect(asEditor.json()).toMatchObject({ role: 'editor', inviteLink: null, membersCount: 2 });
  });

  it('refuses a colour that is not #RRGGBB and a folder that is not the caller’s', async () => {
    const owner = await t.org();
    expectProblem(await t.as(owner).post('/spaces', { name: 'X', iconColor: 'red' }), 400, 'VALIDATION_FAILED');
    const other = await t.org();
    const group = (await t.as(other).post('/space-groups', { name: 'Theirs' })).json();
    expectProblem(await t.as(owner).post('/spaces', { name: 'X', spaceGroupId: group.id }), 400, 'REFERENCE_NOT_FOUND');
    expect(await list(owner)).toEqual([]);
  });

  it('answers 404 to a space of another organization and to one the caller is not in', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    expectProblem(await t.as(await t.org()).get(`/spaces/${space.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(await t.member(owner)).get(`/spaces/${space.id}`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'POST /spaces', {
    method: 'POST',
    setup: async () => ({ url: '/spaces', owner: await t.org(), body: { name: 'S' }, badBody: { name: '' } }),
  });

  commonCases(t, 'GET /spaces/:id', {
    method: 'GET',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}`, owner };
    },
  });
});

describe('DELETE /spaces/:id', () => {
  it('deletes the space with its projects, tasks, members and link, and closes sidebar gaps', async () => {
    const { owner, space, stages } = await f.board(1);
    await f.task(owner, stages[0]!.id);
    const after = await f.space(owner, 'After');
    const member = await f.spaceMember(owner, space.id, 'member');
    await t.as(owner).post(`/spaces/${after.id}/members`, { userIds: [member.id], role: 'reader' });
    await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'reader' });
    expect(await orderOf(member)).toEqual([['Space', '0'], ['After', '1']]);

    const res = await t.as(owner).delete(`/spaces/${space.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const table of ['spaces', 'projects', 'tasks', 'space_members', 'space_user_settings', 'invite_links']) {
      const column = table === 'spaces' ? 'id' : 'space_id';
      const rows = await t.sql(sql`select 1 from ${sql.identifier(table)} where ${sql.identifier(column)} = ${space.id}`);
      expect(rows, table).toHaveLength(0);
    }
    expect(await orderOf(owner)).toEqual([['After', '0']]);
    expect(await orderOf(member)).toEqual([['After', '0']]);
    expectProblem(await t.as(owner).get(`/spaces/${space.id}`), 404);
  });

  commonCases(t, 'DELETE /spaces/:id', {
    method: 'DELETE',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}`, owner, forbidden: await f.spaceMember(owner, space.id, 'editor') };
    },
  });
});

describe('PATCH /spaces/:id/order', () => {
  it("moves the space in the caller's own order only, renumbering densely", async () => {
    const owner = await t.org();
    const a = await f.space(owner, 'A');
    const b = await f.space(owner, 'B');
    const c = await f.space(owner, 'C');
    const reader = await f.spaceMember(owner, a.id, 'reader');
    await t.as(owner).post(`/spaces/${c.id}/members`, { userIds: [reader.id], role: 'reader' });

    const res = await t.as(owner).patch(`/spaces/${c.id}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, order: '0', spaceGroupId: null });
    expect(await orderOf(owner)).toEqual([['C', '0'], ['A', '1'], ['B', '2']]);
    // A numeric string is accepted; a position past the end is clamped.
    expect((await t.as(owner).patch(`/spaces/${c.id}/order`, { order: '99' })).json().order).toBe('2');
    expect(await orderOf(owner)).toEqual([['A', '0'], ['B', '1'], ['C', '2']]);
    // A reader may order its own sidebar; the owner's stays as it was.
    expect((await t.as(reader).patch(`/spaces/${c.id}/order`, { order: 0 })).statusCode).toBe(200);
    expect(await orderOf(reader)).toEqual([['C', '0'], ['A', '1']]);
    expect(await orderOf(owner)).toEqual([['A', '0'], ['B', '1'], ['C', '2']]);
    expect(b.id).toBeGreaterThan(0);
  });

  it('moves a space into a folder and out of it, each folder dense', async () => {
    const owner = await t.org();
    const a = await f.space(owner, 'A');
    const b = await f.space(owner, 'B');
    await f.space(owner, 'C');
    const group = (await t.as(owner).post('/space-groups', { name: 'G' })).json();
    const moved = await t.as(owner).patch(`/spaces/${a.id}/order`, { order: 0, spaceGroupId: group.id });
    expect(moved.json()).toMatchObject({ order: '0', spaceGroupId: group.id });
    await t.as(owner).patch(`/spaces/${b.id}/order`, { order: 0, spaceGroupId: group.id });
    expect((await list(owner)).map((s) => [s.name, s.spaceGroupId, s.order])).toEqual([
      ['C', null, '0'],
      ['B', group.id, '0'],
      ['A', group.id, '1'],
    ]);
    // Without spaceGroupId the space stays in its folder; null takes it out.
    expect((await t.as(owner).patch(`/spaces/${a.id}/order`, { order: 0 })).json()).toMatchObject({ spaceGroupId: group.id, order: '0' });
    expect((await t.as(owner).patch(`/spaces/${a.id}/order`, { order: 0, spaceGroupId: null })).json()).toMatchObject({ spaceGroupId: null, order: '0' });
    expect((await list(owner)).map((s) => [s.name, s.spaceGroupId, s.order])).toEqual([
      ['A', null, '0'],
      ['C', null, '1'],
      ['B', group.id, '0'],
    ]);
    expect((await t.as(owner).get('/space-groups')).json()[0].spaceIds).toEqual([b.id]);
  });

  it("refuses someone else's folder (400) and a negative position (400)", async () => {
    const owner = await t.org();
    const a = await f.space(owner, 'A');
    const theirs = (await t.as(await t.org()).post('/space-groups', { name: 'Theirs' })).json();
    expectProblem(await t.as(owner).patch(`/spaces/${a.id}/order`, { order: 0, spaceGroupId: theirs.id }), 400, 'REFERENCE_NOT_FOUND');
    expectProblem(await t.as(owner).patch(`/spaces/${a.id}/order`, { order: -1 }), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'PATCH /spaces/:id/order', {
    method: 'PATCH',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}/order`, owner, body: { order: 0 }, badBody: { order: 'first' } };
    },
  });
});

describe('PATCH /spaces/:id/favorite', () => {
  it("sets the caller's own flag, also for a space it never placed (organization admin)", async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const admin = await t.member(owner, 'admin');
    const res = await t.as(admin).patch(`/spaces/${space.id}/favorite`, { favorite: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: space.id, favorite: true, role: 'admin', order: '0' });
    expect((await list(owner))[0]!.favorite).toBe(false);
    expect((await t.as(admin).patch(`/spaces/${space.id}/favorite`, { favorite: false })).json().favorite).toBe(false);
  });

  commonCases(t, 'PATCH /spaces/:id/favorite', {
    method: 'PATCH',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}/favorite`, owner, body: { favorite: true }, badBody: { favorite: 'yes' } };
    },
  });
});
