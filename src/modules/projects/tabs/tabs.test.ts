import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { docsFactories } from '../../docs/docs.fixtures.js';
import { changeLog } from '../../events/emitted.fixtures.js';
import { boardWithRoles } from '../../tasks/tasks.fixtures.js';

const t = useTestApp();
const d = docsFactories(t);
const newEvents = changeLog(t);

async function world() {
  const b = await boardWithRoles(t, 0);
  const editor = await b.f.spaceMember(b.owner, b.space.id, 'editor');
  const group = await d.group(b.owner, b.space.id);
  const page = await d.page(b.owner, b.space.id, group.id, { name: 'Handbook' });
  const other = await b.f.project(b.owner, b.space.id, 'Other board');
  const url = `/projects/${b.project.id}/tabs`;
  return { ...b, editor, page, other, url };
}

const orderOf = async (w: Awaited<ReturnType<typeof world>>) =>
  ((await t.as(w.reader).get(`/projects/${w.project.id}`)).json().tabs as Array<{ id: number; order: string }>).map((x) => [x.id, x.order]);

describe('POST /projects/{projectId}/tabs', () => {
  it('adds each type with its target, at the end or at a position, shown in Project(full) in order and announced', async () => {
    const w = await world();
    await newEvents(w.owner.organizationId);
    const as = t.as(w.editor);
    const link = await as.post(w.url, { type: 'link', name: ' Specs ', url: 'https://example.com/specs' });
    expect(link.statusCode).toBe(201);
    expect(link.json()).toMatchObject({ projectId: w.project.id, type: 'link', name: 'Specs', url: 'https://example.com/specs', pageId: null, sourceProjectId: null, order: '0' });
    expect(Object.keys(link.json()).sort()).toEqual(['createdAt', 'id', 'name', 'order', 'pageId', 'projectId', 'sourceProjectId', 'type', 'updatedAt', 'url']);
    const doc = (await as.post(w.url, { type: 'doc', name: 'Handbook', pageId: w.page.id })).json();
    const board = (await as.post(w.url, { type: 'board', name: 'Other', sourceProjectId: w.other.id, order: 0 })).json();
    const table = (await as.post(w.url, { type: 'table', name: 'Table', order: 1 })).json();
    expect([doc.pageId, board.sourceProjectId, table.url]).toEqual([w.page.id, w.other.id, null]);
    expect(await orderOf(w)).toEqual([[board.id, '0'], [table.id, '1'], [link.json().id, '2'], [doc.id, '3']]);
    const events = await newEvents(w.owner.organizationId);
    expect(events.map((e) => [e.type, e.projectId, e.spaceId])).toEqual(Array(4).fill(['tab.created', w.project.id, w.space.id]));
    expect(events[0]!.payload).toEqual(link.json());
  });

  it('takes only the target its type needs, web links only, and what the caller can read (400, nothing created)', async () => {
    const w = await world();
    const as = t.as(w.editor);
    const elsewhere = await w.f.space(w.owner, 'Private');
    const hiddenGroup = await d.group(w.owner, elsewhere.id);
    const hidden = await d.page(w.owner, elsewhere.id, hiddenGroup.id);
    const stranger = await d.docs();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'link', name: 'x' }, 'BAD_REQUEST'],
      [{ type: 'link', name: 'x', url: 'https://a.example', pageId: w.page.id }, 'BAD_REQUEST'],
      [{ type: 'table', name: 'x', sourceProjectId: w.other.id }, 'BAD_REQUEST'],
      [{ type: 'board', name: 'x', sourceProjectId: w.project.id }, 'BAD_REQUEST'],
      [{ type: 'link', name: 'x', url: 'javascript:alert(1)' }, 'VALIDATION_FAILED'],
      [{ type: 'chart', name: 'x' }, 'VALIDATION_FAILED'],
      [{ type: 'doc', name: 'x', pageId: hidden.id }, 'REFERENCE_NOT_FOUND'],
      [{ type: 'doc', name: 'x', pageId: stranger.page.id }, 'REFERENCE_NOT_FOUND'],
      [{ type: 'board', name: 'x', sourceProjectId: 999_999_999 }, 'REFERENCE_NOT_FOUND'],
    ];
    for (const [body, code] of cases) expectProblem(await as.post(w.url, body), 400, code);
    expect(await orderOf(w)).toEqual([]);
  });
});

describe('PATCH, move and DELETE /projects/{projectId}/tabs/{tabId}', () => {
  it('changes the name and the target of the tab’s type, nothing else', async () => {
    const w = await world();
    const as = t.as(w.editor);
    const link = (await as.post(w.url, { type: 'link', name: 'Specs', url: 'https://example.com/a' })).json();
    const changed = await as.patch(`${w.url}/${link.id}`, { name: 'Spec', url: 'http://example.com/b' });
    expect([changed.statusCode, changed.json().name, changed.json().url]).toEqual([200, 'Spec', 'http://example.com/b']);
    expectProblem(await as.patch(`${w.url}/${link.id}`, { pageId: w.page.id }), 400, 'BAD_REQUEST');
    expectProblem(await as.patch(`${w.url}/${link.id}`, {}), 400, 'VALIDATION_FAILED');
    const board = (await as.post(w.url, { type: 'board', name: 'B', sourceProjectId: w.other.id })).json();
    const third = await w.f.project(w.owner, w.space.id, 'Third');
    expect((await as.patch(`${w.url}/${board.id}`, { sourceProjectId: third.id })).json().sourceProjectId).toBe(third.id);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}`)).json().tabs.map((x: { name: string }) => x.name)).toEqual(['Spec', 'B']);
  });

  it('moves a tab and closes ranks on delete; a deleted page leaves its doc tab pointing at nothing', async () => {
    const w = await world();
    const as = t.as(w.editor);
    const tabs: number[] = [];
    for (const name of ['A', 'B', 'C']) tabs.push((await as.post(w.url, { type: 'table', name })).json().id as number);
    const moved = await as.patch(`${w.url}/${tabs[2]}/order`, { order: 0 });
    expect([moved.statusCode, moved.json().order]).toEqual([200, '0']);
    expect(await orderOf(w)).toEqual([[tabs[2], '0'], [tabs[0], '1'], [tabs[1], '2']]);
    await newEvents(w.owner.organizationId);
    expect((await as.delete(`${w.url}/${tabs[0]}`)).statusCode).toBe(204);
    expect(await orderOf(w)).toEqual([[tabs[2], '0'], [tabs[1], '1']]);
    expect((await newEvents(w.owner.organizationId)).map((e) => [e.type, e.payload])).toEqual([['tab.deleted', { id: tabs[0] }]]);
    expectProblem(await as.delete(`${w.url}/${tabs[0]}`), 404, 'NOT_FOUND');
    // A tab of another project is not found through this one.
    const foreign = (await as.post(`/projects/${w.other.id}/tabs`, { type: 'table', name: 'T' })).json();
    expectProblem(await as.patch(`${w.url}/${foreign.id}`, { name: 'x' }), 404, 'NOT_FOUND');

    const doc = (await as.post(w.url, { type: 'doc', name: 'Doc', pageId: w.page.id })).json();
    expect((await t.as(w.owner).delete(`/pages/${w.page.id}`)).statusCode).toBe(204);
    expect((await t.as(w.reader).get(`/projects/${w.project.id}`)).json().tabs.find((x: { id: number }) => x.id === doc.id).pageId).toBeNull();
  });
});

describe('tabs whose target goes away', () => {
  it('are announced (tab.updated, target null) when their page is deleted or their board’s space is', async () => {
    const w = await world();
    const as = t.as(w.owner);
    const doc = (await as.post(w.url, { type: 'doc', name: 'Doc', pageId: w.page.id })).json();
    const elsewhere = await w.f.space(w.owner, 'Elsewhere');
    const remote = await w.f.project(w.owner, elsewhere.id, 'Remote');
    const board = (await as.post(w.url, { type: 'board', name: 'Remote board', sourceProjectId: remote.id })).json();
    await newEvents(w.owner.organizationId);

    expect((await as.delete(`/pages/${w.page.id}`)).statusCode).toBe(204);
    const pageGone = (await newEvents(w.owner.organizationId)).filter((e) => e.type.startsWith('tab.'));
    expect(pageGone.map((e) => [e.type, e.projectId, e.payload.id, e.payload.pageId])).toEqual([['tab.updated', w.project.id, doc.id, null]]);

    expect((await as.delete(`/spaces/${elsewhere.id}`)).statusCode).toBe(204);
    const spaceGone = (await newEvents(w.owner.organizationId)).filter((e) => e.type.startsWith('tab.'));
    expect(spaceGone.map((e) => [e.type, e.payload.id, e.payload.sourceProjectId])).toEqual([['tab.updated', board.id, null]]);
  });
});

const tabWorld = async () => {
  const w = await world();
  const tab = (await t.as(w.owner).post(w.url, { type: 'link', name: 'L', url: 'https://example.com' })).json();
  return { w, tab, at: `${w.url}/${tab.id}` };
};

commonCases(t, 'POST /projects/{id}/tabs', {
  method: 'POST',
  async setup() {
    const w = await world();
    return { url: w.url, owner: w.owner, body: { type: 'table', name: 'T' }, badBody: { type: 'table' }, forbidden: w.member };
  },
});
commonCases(t, 'PATCH /projects/{id}/tabs/{tabId}', {
  method: 'PATCH',
  async setup() {
    const { w, at } = await tabWorld();
    return { url: at, owner: w.owner, body: { name: 'N' }, badBody: { name: '' }, forbidden: w.reader };
  },
});
commonCases(t, 'PATCH /projects/{id}/tabs/{tabId}/order', {
  method: 'PATCH',
  async setup() {
    const { w, at } = await tabWorld();
    return { url: `${at}/order`, owner: w.owner, body: { order: 0 }, badBody: { order: -1 }, forbidden: w.member };
  },
});
commonCases(t, 'DELETE /projects/{id}/tabs/{tabId}', {
  method: 'DELETE',
  async setup() {
    const { w, at } = await tabWorld();
    return { url: at, owner: w.owner, forbidden: w.reader };
  },
});
