import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { expectShape, reglamentFactories } from '../reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

const VERSION = { id: 'integer', reglamentId: 'integer', number: 'integer', name: 'string|null', userId: 'integer', size: 'integer', createdAt: 'string' };

async function versioned() {
  const w = await r.world({ content: 'first text' });
  const v1 = (await t.as(w.owner).post(`/reglaments/${w.reglament.id}/versions`, { name: 'Initial' })).json();
  await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/content`, { content: 'second text' });
  return { ...w, v1 };
}

describe('versions', () => {
  it('writes numbered snapshots, lists them newest first and reads one with its content', async () => {
    const w = await versioned();
    const base = `/reglaments/${w.reglament.id}/versions`;
    expectShape(w.v1, VERSION);
    expect(w.v1).toMatchObject({ reglamentId: w.reglament.id, number: 1, name: 'Initial', userId: w.owner.id, size: 10 });
    const v2 = await t.as(w.owner).post(base, {});
    expect(v2.statusCode).toBe(201);
    expect(v2.json()).toMatchObject({ number: 2, name: null, size: 11 });

    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const list = await t.as(reader).get(base);
    expect(list.statusCode).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.json().map((v: { number: number }) => v.number)).toEqual([2, 1]);
    const one = await t.as(reader).get(`${base}/${w.v1.id}`);
    expectShape(one.json(), { ...VERSION, content: 'string' });
    expect(one.json()).toMatchObject({ number: 1, content: 'first text' });
  });

  it('restores a version: the content comes back, the ETag moves on, and the restore is a new version', async () => {
    const w = await versioned();
    const res = await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/versions/${w.v1.id}/restore`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: w.reglament.id, content: 'first text' });
    expect(res.headers.etag).toMatch(/^"3-[\w-]{16}"$/);
    const list = (await t.as(w.owner).get(`/reglaments/${w.reglament.id}/versions`)).json();
    expect(list.map((v: { number: number; name: string | null }) => [v.number, v.name])).toEqual([[2, 'Restored from version 1'], [1, 'Initial']]);
    expectProblem(await t.as(w.owner).request('PATCH', `/reglaments/${w.reglament.id}/content`, { content: 'x' }, { 'if-match': '"2"' }), 409, 'STALE_VERSION');
  });

  it('answers 404 for a version of another reglament', async () => {
    const w = await versioned();
    const other = await r.reglament(w.owner, w.group.id);
    expectProblem(await t.as(w.owner).get(`/reglaments/${other.id}/versions/${w.v1.id}`), 404);
  });

  commonCases(t, 'POST /reglaments/{reglamentId}/versions', {
    method: 'POST',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/versions`, owner: w.owner, body: { name: 'v' }, badBody: { name: 5 }, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
  commonCases(t, 'GET /reglaments/{reglamentId}/versions', {
    method: 'GET',
    setup: async () => {
      const w = await versioned();
      return { url: `/reglaments/${w.reglament.id}/versions`, owner: w.owner };
    },
  });
  commonCases(t, 'GET /reglaments/{reglamentId}/versions/{versionId}', {
    method: 'GET',
    setup: async () => {
      const w = await versioned();
      return { url: `/reglaments/${w.reglament.id}/versions/${w.v1.id}`, owner: w.owner };
    },
  });
  commonCases(t, 'PATCH /reglaments/{reglamentId}/versions/{versionId}/restore', {
    method: 'PATCH',
    setup: async () => {
      const w = await versioned();
      return { url: `/reglaments/${w.reglament.id}/versions/${w.v1.id}/restore`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'reader') };
    },
  });
});

describe('GET /reglaments/{reglamentId}/history', () => {
  it('answers every change newest first, in the ReglamentEvent form', async () => {
    const w = await versioned();
    await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/versions/${w.v1.id}/restore`);
    const res = await t.as(w.owner).get(`/reglaments/${w.reglament.id}/history?limit=3`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('5');
    expect(res.headers.link).toContain('offset=3');
    const events = res.json();
    expectShape(events[0], { id: 'integer', reglamentId: 'integer', userId: 'integer', action: 'string', details: 'object', createdAt: 'string' });
    expect(events.map((e: { action: string }) => e.action)).toEqual(['version', 'restored', 'content']);
    expect(events[1].details).toEqual({ versionId: w.v1.id, number: 1, version: 3 });
    const rest = (await t.as(w.owner).get(`/reglaments/${w.reglament.id}/history?offset=3`)).json();
    expect(rest.map((e: { action: string }) => e.action)).toEqual(['version', 'created']);
  });

  commonCases(t, 'GET /reglaments/{reglamentId}/history', {
    method: 'GET',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/history`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
});
