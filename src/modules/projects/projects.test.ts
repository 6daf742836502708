import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { boardWithRoles } from '../stages/stages.fixtures.js';

const t = useTestApp();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROJECT_KEYS = [
  'createdAt', 'creatorId', 'deletedAt', 'description', 'favorite', 'id', 'linkedSpaceIds', 'name', 'order', 'projectGroupId',
  'showCalendarTab', 'showDocumentationTab', 'showTimelineTab', 'spaceId', 'updatedAt', 'viewSettings',
];
const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((p) => p.id);

describe('create and get a project', () => {
  it('creates a project (full form) at the end of its space', async () => {
    const b = await boardWithRoles(t, 0);
    const res = await t.as(b.owner).post('/projects', { spaceId: b.space.id, name: ' Second ', description: 'About' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([...PROJECT_KEYS, 'stages', 'tabs'].sort());
    expect(body).toMatchObject({
      spaceId: b.space.id, linkedSpaceIds: [], projectGroupId: null, name: 'Second', description: 'About', order: '1',
      showDocumentationTab: false, showTimelineTab: false, showCalendarTab: false, deletedAt: null, creatorId: b.owner.id,
      favorite: false, viewSettings: { timelineScale: 'week', timelineGrouping: 'none' }, stages: [], tabs: [],
    });
    expect(body.createdAt).toMatch(ISO_MS);
  });

  it('gets a project with its columns for a reader', async () => {
    const b = await boardWithRoles(t, 2);
    const res = await t.as(b.reader).get(`/projects/${b.project.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().stages.map((s: { id: number; order: string }) => [s.id, s.order])).toEqual([[b.stages[0]!.id, '0'], [b.stages[1]!.id, '1']]);
  });

  it('hides a project from users outside its spaces (404)', async () => {
    const b = await boardWithRoles(t, 0);
    const outsider = await t.member(b.owner, 'member');
    expectProblem(await t.as(outsider).get(`/projects/${b.project.id}`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'POST /projects', {
    method: 'POST',
    foreignId: true,
    async setup() {
      const b = await boardWithRoles(t, 0);
      return { url: '/projects', owner: b.owner, body: { spaceId: b.space.id, name: 'P' }, badBody: { spaceId: b.space.id, name: '' }, forbidden: b.member };
    },
  });

  commonCases(t, 'GET /projects/{id}', {
    method: 'GET',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const outsider = await t.member(b.owner, 'member');
      return { url: `/projects/${b.project.id}`, owner: b.owner, userIds: [outsider.id] };
    },
  });
});

describe('list projects', () => {
  it("lists the caller's readable projects with paging headers, favourites and the trash", async () => {
    const b = await boardWithRoles(t, 0);
    const second = await b.f.project(b.owner, b.space.id, 'Second');
    const hidden = await b.f.space(b.owner, 'Not for the reader');
    await b.f.project(b.owner, hidden.id, 'Hidden');

    const all = await t.as(b.reader).get('/projects');
    expect(all.statusCode).toBe(200);
    expect(ids(all)).toEqual([b.project.id, second.id]);
    expect(all.headers['x-total-count']).toBe('2');

    const page = await t.as(b.reader).get('/projects?limit=1');
    expect(ids(page)).toEqual([b.project.id]);
    expect(page.headers['link']).toBe('</projects?limit=1&offset=1>; rel="next"');

    await t.as(b.reader).patch(`/projects/${second.id}/favorite`, { favorite: true });
    expect(ids(await t.as(b.reader).get('/projects?favorite=true'))).toEqual([second.id]);
    expect(ids(await t.as(b.owner).get('/projects?favorite=true'))).toEqual([]);

    await t.as(b.owner).delete(`/projects/${second.id}`);
    expect(ids(await t.as(b.reader).get('/projects'))).toEqual([b.project.id]);
    const trash = await t.as(b.reader).get('/projects?deleted=true');
    expect(ids(trash)).toEqual([second.id]);
    expect(trash.json()[0].deletedAt).toMatch(ISO_MS);
  });

  it('lists a space’s projects, linked ones included', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const foreign = await b.f.project(b.owner, other.id, 'Linked in');
    expect((await t.as(b.owner).post(`/projects/${foreign.id}/spaces`, { spaceId: b.space.id })).statusCode).toBe(201);
    const res = await t.as(b.reader).get(`/spaces/${b.space.id}/projects`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { id: number; order: string; spaceId: number }) => [p.id, p.order, p.spaceId])).toEqual([
      [b.project.id, '0', b.space.id],
      [foreign.id, '1', other.id],
    ]);
    expect(res.headers['x-total-count']).toBe('2');
    expect(Object.keys(res.json()[0]).sort()).toEqual(PROJECT_KEYS);
  });

  commonCases(t, 'GET /spaces/{id}/projects', {
    method: 'GET',
    async setup() {
      const b = await boardWithRoles(t, 0);
      return { url: `/spaces/${b.space.id}/projects`, owner: b.owner };
    },
  });

  it('answers 400 to a bad list query', async () => {
    const b = await boardWithRoles(t, 0);
    expectProblem(await t.as(b.owner).get('/projects?limit=0'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(b.owner).get('/projects?deleted=maybe'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(null).get('/projects'), 401, 'UNAUTHENTICATED');
  });
});

describe('change a project', () => {
  it('renames, changes the description and shows the tabs', async () => {
    const b = await boardWithRoles(t, 0);
    const url = `/projects/${b.project.id}`;
    const renamed = await t.as(b.owner).patch(`${url}/name`, { name: 'Renamed' });
    expect(renamed.statusCode).toBe(200);
    expect(Object.keys(renamed.json()).sort()).toEqual(PROJECT_KEYS);
    expect(renamed.json().name).toBe('Renamed');
    expect((await t.as(b.owner).patch(`${url}/description`, { description: 'Text' })).json().description).toBe('Text');
    expect((await t.as(b.owner).patch(`${url}/description`, { description: null })).json().description).toBeNull();
    expect((await t.as(b.owner).patch(`${url}/show-documentation-tab`, { showDocumentationTab: true })).json().showDocumentationTab).toBe(true);
    expect((await t.as(b.owner).patch(`${url}/show-timeline-tab`, { showTimelineTab: true })).json().showTimelineTab).toBe(true);
    const last = await t.as(b.owner).patch(`${url}/show-calendar-tab`, { showCalendarTab: true });
    expect(last.json()).toMatchObject({ name: 'Renamed', showDocumentationTab: true, showTimelineTab: true, showCalendarTab: true });
  });

  const cases: Array<[string, unknown, unknown]> = [
    ['name', { name: 'New' }, { name: '   ' }],
    ['description', { description: 'D' }, { description: 5 }],
    ['show-documentation-tab', { showDocumentationTab: true }, { showDocumentationTab: 'yes' }],
    ['show-timeline-tab', { showTimelineTab: true }, {}],
    ['show-calendar-tab', { showCalendarTab: true }, { showCalendarTab: null }],
  ];
  for (const [segment, body, badBody] of cases) {
    commonCases(t, `PATCH /projects/{id}/${segment}`, {
      method: 'PATCH',
      async setup() {
        const b = await boardWithRoles(t, 0);
        return { url: `/projects/${b.project.id}/${segment}`, owner: b.owner, body, badBody, forbidden: b.member };
      },
    });
  }
});

describe('favourite a project', () => {
  it("sets the caller's own flag, readers included", async () => {
    const b = await boardWithRoles(t, 0);
    const res = await t.as(b.reader).patch(`/projects/${b.project.id}/favorite`, { favorite: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().favorite).toBe(true);
    expect((await t.as(b.owner).get(`/projects/${b.project.id}`)).json().favorite).toBe(false);
    expect((await t.as(b.reader).patch(`/projects/${b.project.id}/favorite`, { favorite: false })).json().favorite).toBe(false);
  });

  commonCases(t, 'PATCH /projects/{id}/favorite', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      return { url: `/projects/${b.project.id}/favorite`, owner: b.owner, body: { favorite: true }, badBody: { favorite: 1 } };
    },
  });
});

describe("the caller's timeline view", () => {
  it('keeps zoom and swimlanes per user, readers included, and announces nothing', async () => {
    const b = await boardWithRoles(t, 0);
    const [before] = await t.sql<{ n: number }>(sql`select count(*)::int as n from events where organization_id = ${b.owner.organizationId}`);
    const scale = await t.as(b.reader).patch(`/projects/${b.project.id}/timeline-scale`, { timelineScale: 'month' });
    expect([scale.statusCode, scale.json().viewSettings]).toEqual([200, { timelineScale: 'month', timelineGrouping: 'none' }]);
    const grouping = await t.as(b.reader).patch(`/projects/${b.project.id}/timeline-grouping`, { timelineGrouping: 'assignee' });
    expect([grouping.statusCode, grouping.json().viewSettings]).toEqual([200, { timelineScale: 'month', timelineGrouping: 'assignee' }]);
    expect((await t.as(b.reader).get(`/projects/${b.project.id}`)).json()).toMatchObject({ favorite: false, viewSettings: { timelineScale: 'month', timelineGrouping: 'assignee' } });
    expect((await t.as(b.owner).get(`/projects/${b.project.id}`)).json().viewSettings).toEqual({ timelineScale: 'week', timelineGrouping: 'none' });
    // The favourite flag shares the row and is left as it was.
    await t.as(b.reader).patch(`/projects/${b.project.id}/favorite`, { favorite: true });
    expect((await t.as(b.reader).get(`/projects/${b.project.id}`)).json()).toMatchObject({ favorite: true, viewSettings: { timelineScale: 'month' } });
    const [after] = await t.sql<{ n: number }>(sql`select count(*)::int as n from events where organization_id = ${b.owner.organizationId}`);
    expect(after!.n).toBe(before!.n);
  });

  for (const [path, body, badBody] of [
    ['timeline-scale', { timelineScale: 'day' }, { timelineScale: 'year' }],
    ['timeline-grouping', { timelineGrouping: 'label' }, { timelineGrouping: 'priority' }],
  ] as const) {
    commonCases(t, `PATCH /projects/{id}/${path}`, {
      method: 'PATCH',
      async setup() {
        const b = await boardWithRoles(t, 0);
        return { url: `/projects/${b.project.id}/${path}`, owner: b.owner, body, badBody };
      },
    });
  }
});

describe('delete and restore a project', () => {
  it('soft-deletes: hidden, its board unreachable, siblings renumbered; restore brings it back at the end', async () => {
    const b = await boardWithRoles(t, 1);
    const second = await b.f.project(b.owner, b.space.id, 'Second');
    const res = await t.as(b.owner).delete(`/projects/${b.project.id}`);
    expect(res.statusCode).toBe(204);
    expectProblem(await t.as(b.owner).get(`/projects/${b.project.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${b.stages[0]!.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/name`, { name: 'X' }), 404, 'NOT_FOUND');
    const [row] = await t.sql<{ deleted: boolean }>(sql`select deleted_at is not null as deleted from projects where id = ${b.project.id}`);
    expect(row!.deleted).toBe(true);
    expect((await t.as(b.owner).get(`/spaces/${b.space.id}/projects`)).json().map((p: { id: number; order: string }) => [p.id, p.order])).toEqual([[second.id, '0']]);

    const restored = await t.as(b.owner).patch(`/projects/${b.project.id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ id: b.project.id, deletedAt: null, order: '1', stages: [{ id: b.stages[0]!.id }], tabs: [] });
    expect((await t.as(b.owner).get(`/projects/${b.project.id}`)).statusCode).toBe(200);
    // Restoring a live project changes nothing.
    expect((await t.as(b.owner).patch(`/projects/${b.project.id}/restore`)).json().order).toBe('1');
  });

  commonCases(t, 'DELETE /projects/{id}', {
    method: 'DELETE',
    async setup() {
      const b = await boardWithRoles(t, 0);
      return { url: `/projects/${b.project.id}`, owner: b.owner, forbidden: b.member };
    },
  });

  commonCases(t, 'PATCH /projects/{id}/restore', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      await t.as(b.owner).delete(`/projects/${b.project.id}`);
      return { url: `/projects/${b.project.id}/restore`, owner: b.owner, forbidden: b.reader };
    },
  });
});
