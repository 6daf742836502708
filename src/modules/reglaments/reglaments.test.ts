import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { ISO_MS, expectShape, reglamentFactories } from './reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

const events = (reglamentId: number) =>
  t.sql<{ action: string; details: Record<string, unknown> }>(sql`select action, details from reglament_events where reglament_id = ${reglamentId} order by id`);

describe('POST /reglaments (spec 10)', () => {
  it('creates a reglament in a group and answers the spec create form exactly', async () => {
    const owner = await t.org();
    const space = await r.space(owner);
    const group = await r.group(owner, space.id);
    const res = await t.as(owner).post('/reglaments', { name: ' Safety ', reglamentColumnId: group.id, content: '# Rules\n\nBe safe', order: 0, draft: false });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expectShape(body, {
      id: 'integer', name: 'string', reglamentColumnId: 'integer', content: 'string', createdAt: 'string', updatedAt: 'string',
      creatorId: 'integer', order: 'integer', usersPassed: 'array', intro: 'boolean',
    });
    expect(body).toMatchObject({ name: 'Safety', reglamentColumnId: group.id, content: '# Rules\n\nBe safe', creatorId: owner.id, order: 0, usersPassed: [], intro: false });
    expect(body.createdAt).toMatch(ISO_MS);
    expect(await events(body.id)).toEqual([{ action: 'created', details: { name: 'Safety', draft: false } }]);
  });

  it('places it at the requested position, renumbering the group densely', async () => {
    const w = await r.world();
    const second = await r.reglament(w.owner, w.group.id, { order: 0, name: 'First now' });
    expect(second.order).toBe(0);
    const list = (await t.as(w.owner).get(`/spaces/${w.space.id}/reglaments`)).json();
    expect(list.map((x: { id: number; order: string }) => [x.id, x.order])).toEqual([[second.id, '0'], [w.reglament.id, '1']]);
  });

  it('answers 404 for a group of another organization and 400 for content over 1 MiB, creating nothing', async () => {
    const w = await r.world();
    const stranger = await t.org();
    expectProblem(await t.as(stranger).post('/reglaments', { name: 'X', reglamentColumnId: w.group.id, content: '', order: 0, draft: false }), 404);
    const big = 'é'.repeat(600_000); // 1.2 MB in UTF-8, fewer characters than the limit
    const problem = expectProblem(await t.as(w.owner).post('/reglaments', { name: 'X', reglamentColumnId: w.group.id, content: big, order: 0, draft: false }), 400, 'VALIDATION_FAILED');
    expect(problem.errors).toEqual([{ path: '/content', message: 'must NOT be larger than 1048576 bytes' }]);
    expect(await t.sql(sql`select id from reglaments where organization_id = ${w.owner.organizationId}`)).toHaveLength(1);
  });

  commonCases(t, 'POST /reglaments', {
    method: 'POST',
    setup: async (kit) => {
      const owner = await kit.org();
      const space = await r.space(owner);
      const group = await r.group(owner, space.id);
      return {
        url: '/reglaments',
        owner,
        body: { name: 'Rules', reglamentColumnId: group.id, content: 'x', order: 0, draft: false },
        badBody: { name: '', reglamentColumnId: group.id, content: 'x', order: 0, draft: false },
        forbidden: await r.spaceMember(owner, space.id, 'member'),
      };
    },
  });
});

describe('GET /spaces/{spaceId}/reglaments (spec 11)', () => {
  it('lists in the spec list form exactly, drafts for editors only', async () => {
    const w = await r.world();
    const draft = await r.reglament(w.owner, w.group.id, { name: 'Draft', draft: true, order: 1 });
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const editor = await r.spaceMember(w.owner, w.space.id, 'editor');

    const res = await t.as(reader).get(`/spaces/${w.space.id}/reglaments`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('1');
    const [item] = res.json();
    expectShape(item, {
      id: 'integer', name: 'string', draft: 'boolean', reglamentColumnId: 'integer', content: 'string', createdAt: 'string',
      updatedAt: 'string', creator: 'object', order: 'string', usersPassed: 'array',
    });
    expectShape(item.creator, { id: 'integer', email: 'string', name: 'string', avatar: 'string|null' });
    expect(item).toMatchObject({ id: w.reglament.id, draft: false, order: '0', creator: { id: w.owner.id, email: w.owner.email, avatar: null } });

    const asEditor = (await t.as(editor).get(`/spaces/${w.space.id}/reglaments`)).json();
    expect(asEditor.map((x: { id: number; draft: boolean }) => [x.id, x.draft])).toEqual([[w.reglament.id, false], [draft.id, true]]);
  });

  it('is bounded: limit/offset with X-Total-Count and Link', async () => {
    const w = await r.world();
    await r.reglament(w.owner, w.group.id, { name: 'Two', order: 1 });
    await r.reglament(w.owner, w.group.id, { name: 'Three', order: 2 });
    const res = await t.as(w.owner).get(`/spaces/${w.space.id}/reglaments?limit=2`);
    expect(res.json().map((x: { name: string }) => x.name)).toEqual(['Safety rules', 'Two']);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toBe(`</spaces/${w.space.id}/reglaments?limit=2&offset=2>; rel="next"`);
  });

  commonCases(t, 'GET /spaces/{spaceId}/reglaments', {
    method: 'GET',
    setup: async () => {
      const w = await r.world();
      return { url: `/spaces/${w.space.id}/reglaments`, owner: w.owner };
    },
  });
});

describe('GET /reglaments/{reglamentId}', () => {
  it('answers Reglament(full) with an ETag; a draft is 404 to a reader', async () => {
    const w = await r.world();
    const res = await t.as(w.owner).get(`/reglaments/${w.reglament.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
    expectShape(res.json(), {
      id: 'integer', name: 'string', draft: 'boolean', reglamentColumnId: 'integer', content: 'string', createdAt: 'string', updatedAt: 'string',
      creator: 'object', order: 'string', usersPassed: 'array', intro: 'boolean', mandatory: 'boolean', favorite: 'boolean', spaceIds: 'array',
      questionsCount: 'integer', passedByMe: 'boolean',
    });
    expect(res.json()).toMatchObject({ spaceIds: [w.space.id], questionsCount: 0, passedByMe: false, favorite: false, mandatory: false, intro: false });

    const draft = await r.reglament(w.owner, w.group.id, { draft: true });
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    expectProblem(await t.as(reader).get(`/reglaments/${draft.id}`), 404, 'NOT_FOUND');
    expect((await t.as(reader).get(`/reglaments/${w.reglament.id}`)).statusCode).toBe(200);
  });

  commonCases(t, 'GET /reglaments/{reglamentId}', {
    method: 'GET',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}`, owner: w.owner };
    },
  });
});

describe('single-property changes', () => {
  it('renames, publishes, sets mandatory and favourite, each answering Reglament(full) and writing history', async () => {
    const w = await r.world({ draft: true });
    const id = w.reglament.id;
    expect((await t.as(w.owner).patch(`/reglaments/${id}/name`, { name: 'New name' })).json()).toMatchObject({ id, name: 'New name' });
    expect((await t.as(w.owner).patch(`/reglaments/${id}/publish`)).json()).toMatchObject({ id, draft: false });
    expect((await t.as(w.owner).patch(`/reglaments/${id}/publish`)).json()).toMatchObject({ draft: false });
    expect((await t.as(w.owner).patch(`/reglaments/${id}/mandatory`, { mandatory: true })).json()).toMatchObject({ mandatory: true });
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const fav = await t.as(reader).patch(`/reglaments/${id}/favorite`, { favorite: true });
    expect(fav.statusCode).toBe(200);
    expect(fav.json()).toMatchObject({ favorite: true });
    expect((await t.as(w.owner).get(`/reglaments/${id}`)).json().favorite).toBe(false);
    expect((await events(id)).map((e) => e.action)).toEqual(['created', 'renamed', 'published', 'mandatory']);
    expect((await events(id))[1]!.details).toEqual({ from: 'Safety rules', to: 'New name' });
  });

  for (const [path, body, badBody, role] of [
    ['name', { name: 'Renamed' }, { name: '' }, 'member'],
    // A reader cannot see a draft at all (404), so the refusal is shown on a published one.
    ['publish', undefined, undefined, 'member'],
    ['mandatory', { mandatory: true }, { mandatory: 'yes' }, 'member'],
  ] as const) {
    commonCases(t, `PATCH /reglaments/{reglamentId}/${path}`, {
      method: 'PATCH',
      setup: async () => {
        const w = await r.world();
        return { url: `/reglaments/${w.reglament.id}/${path}`, owner: w.owner, body, badBody, forbidden: await r.spaceMember(w.owner, w.space.id, role) };
      },
    });
  }

  commonCases(t, 'PATCH /reglaments/{reglamentId}/favorite', {
    method: 'PATCH',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/favorite`, owner: w.owner, body: { favorite: true }, badBody: { favorite: 1 } };
    },
  });
});

describe('PATCH /reglaments/{reglamentId}/content', () => {
  it('never answers 304 with a stale form: a change beside the content (a favourite) changes the ETag', async () => {
    const w = await r.world();
    const url = `/reglaments/${w.reglament.id}`;
    const before = (await t.as(w.owner).get(url)).headers.etag as string;
    expect((await t.as(w.owner).request('GET', url, undefined, { 'if-none-match': before })).statusCode).toBe(304);
    expect((await t.as(w.owner).patch(`${url}/favorite`, { favorite: true })).statusCode).toBe(200);
    const fresh = await t.as(w.owner).request('GET', url, undefined, { 'if-none-match': before });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json().favorite).toBe(true);
    expect(fresh.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
    expect(fresh.headers.etag).not.toBe(before);
  });

  it('writes the content, bumps the ETag and honours If-Match', async () => {
    const w = await r.world();
    const url = `/reglaments/${w.reglament.id}/content`;
    const first = await t.as(w.owner).request('PATCH', url, { content: '<h1>v2</h1>' }, { 'if-match': '"1"' });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toMatch(/^"2-[\w-]{16}"$/);
    expect(first.json().content).toBe('<h1>v2</h1>');
    const stale = await t.as(w.owner).request('PATCH', url, { content: 'lost' }, { 'if-match': '"1"' });
    expectProblem(stale, 409, 'STALE_VERSION');
    const plain = await t.as(w.owner).patch(url, { content: 'no precondition' });
    expect(plain.headers.etag).toMatch(/^"3-[\w-]{16}"$/);
    expect((await t.as(w.owner).get(`/reglaments/${w.reglament.id}`)).json().content).toBe('no precondition');
    expect((await events(w.reglament.id)).filter((e) => e.action === 'content').map((e) => e.details.version)).toEqual([2, 3]);
  });

  it('two editors writing with the same If-Match: one 200, the other 409, the winner’s content kept', async () => {
    const w = await r.world();
    const other = await r.spaceMember(w.owner, w.space.id, 'editor');
    const url = `/reglaments/${w.reglament.id}/content`;
    const [a, b] = await Promise.all([
      t.as(w.owner).request('PATCH', url, { content: 'from A' }, { 'if-match': '"1"' }),
      t.as(other).request('PATCH', url, { content: 'from B' }, { 'if-match': '"1"' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const winner = a.statusCode === 200 ? 'from A' : 'from B';
    expectProblem(a.statusCode === 409 ? a : b, 409, 'STALE_VERSION');
    const now = await t.as(w.owner).get(`/reglaments/${w.reglament.id}`);
    expect(now.json().content).toBe(winner);
    expect(now.headers.etag).toMatch(/^"2-[\w-]{16}"$/);
  });

  it('accepts content of exactly 1 MiB', async () => {
    const w = await r.world();
    const content = 'a'.repeat(1_048_576);
    const res = await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/content`, { content });
    expect(res.statusCode).toBe(200);
    expect(res.json().content.length).toBe(1_048_576);
  });

  commonCases(t, 'PATCH /reglaments/{reglamentId}/content', {
    method: 'PATCH',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/content`, owner: w.owner, body: { content: 'new' }, badBody: { content: 5 }, forbidden: await r.spaceMember(w.owner, w.space.id, 'reader') };
    },
  });
});

describe('DELETE /reglaments/{reglamentId}', () => {
  it('deletes it with its test and clears a space intro pointing to it', async () => {
    const w = await r.testWorld();
    await t.as(w.owner).patch(`/spaces/${w.space.id}/intro-reglament`, { reglamentId: w.reglament.id });
    const res = await t.as(w.owner).delete(`/reglaments/${w.reglament.id}`);
    expect(res.statusCode).toBe(204);
    expectProblem(await t.as(w.owner).get(`/reglaments/${w.reglament.id}`), 404);
    expect(await t.sql(sql`select id from reglament_questions where reglament_id = ${w.reglament.id}`)).toEqual([]);
    expect((await t.as(w.owner).get(`/spaces/${w.space.id}`)).json().introReglamentId).toBeNull();
  });

  commonCases(t, 'DELETE /reglaments/{reglamentId}', {
    method: 'DELETE',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
});
