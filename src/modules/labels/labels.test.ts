import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const LABEL_KEYS = ['color', 'createdAt', 'creatorId', 'id', 'name', 'updatedAt'];

async function world() {
  const owner = await t.org();
  const space = await f.space(owner);
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const reader = await f.spaceMember(owner, space.id, 'reader');
  const label = (await t.as(owner).post('/labels', { name: 'Bug', color: '#FF0000' })).json();
  return { owner, space, editor, reader, label };
}

describe('labels', () => {
  it('creates, lists (filtered, paged), updates and deletes organization labels', async () => {
    const { owner, editor, label } = await world();
    expect(Object.keys(label).sort()).toEqual(LABEL_KEYS);
    expect(label).toMatchObject({ name: 'Bug', color: '#ff0000', creatorId: owner.id });

    const second = await t.as(editor).post('/labels', { name: 'Feature', color: '#00ff00' });
    expect(second.statusCode).toBe(201);

    const all = await t.as(owner).get('/labels?limit=1');
    expect(all.statusCode).toBe(200);
    expect(all.headers['x-total-count']).toBe('2');
    expect(all.headers.link).toContain('offset=1');
    expect(all.json().map((l: { name: string }) => l.name)).toEqual(['Bug']);
    expect((await t.as(owner).get('/labels?q=feat')).json().map((l: { name: string }) => l.name)).toEqual(['Feature']);

    const updated = await t.as(editor).patch(`/labels/${label.id}`, { name: 'Defect' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ id: label.id, name: 'Defect', color: '#ff0000' });

    expect((await t.as(owner).delete(`/labels/${label.id}`)).statusCode).toBe(204);
    expect((await t.as(owner).get('/labels')).json().map((l: { name: string }) => l.name)).toEqual(['Feature']);
  });

  it('treats a LIKE wildcard in q as a plain character', async () => {
    const { owner } = await world();
    expect((await t.as(owner).get('/labels?q=%25')).json()).toEqual([]);
  });

  it("never shows another organization's labels", async () => {
    const { label } = await world();
    const stranger = await t.org();
    expect((await t.as(stranger).get('/labels')).json()).toEqual([]);
    expectProblem(await t.as(stranger).patch(`/labels/${label.id}`, { name: 'x' }), 404);
    const [row] = await t.sql<{ name: string }>(sql`select name from labels where id = ${label.id}`);
    expect(row!.name).toBe('Bug');
  });
});

commonCases(t, 'GET /labels', {
  method: 'GET',
  foreignId: false,
  setup: async () => {
    const { owner } = await world();
    return { url: '/labels', owner };
  },
});
commonCases(t, 'POST /labels', {
  method: 'POST',
  foreignId: false,
  setup: async () => {
    const { owner, reader } = await world();
    return { url: '/labels', owner, body: { name: 'New', color: '#123456' }, badBody: { name: 'New', color: 'red' }, forbidden: reader };
  },
});
commonCases(t, 'PATCH /labels/{labelId}', {
  method: 'PATCH',
  setup: async () => {
    const { owner, reader, label } = await world();
    return { url: `/labels/${label.id}`, owner, body: { name: 'Renamed' }, badBody: { name: '' }, forbidden: reader };
  },
});
commonCases(t, 'DELETE /labels/{labelId}', {
  method: 'DELETE',
  setup: async () => {
    const { owner, editor, label } = await world();
    return { url: `/labels/${label.id}`, owner, forbidden: editor };
  },
});
