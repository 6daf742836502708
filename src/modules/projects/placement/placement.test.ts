import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles } from '../../stages/stages.fixtures.js';

const t = useTestApp();

/** [id, group, order] of a space's listing, which shows linked projects where they sit in that space. */
async function sidebar(owner: Parameters<typeof t.as>[0], spaceId: number) {
  const res = await t.as(owner).get(`/spaces/${spaceId}/projects`);
  return (res.json() as Array<{ id: number; projectGroupId: number | null; order: string }>).map((p) => [p.id, p.projectGroupId, p.order]);
}

async function newGroup(owner: Parameters<typeof t.as>[0], spaceId: number, name = 'G') {
  return (await t.as(owner).post(`/spaces/${spaceId}/project-groups`, { name })).json() as { id: number };
}

describe('move a project within its group', () => {
  it('moves it and renumbers the siblings densely', async () => {
    const b = await boardWithRoles(t, 0);
    const p2 = await b.f.project(b.owner, b.space.id, 'P2');
    const p3 = await b.f.project(b.owner, b.space.id, 'P3');
    const res = await t.as(b.owner).patch(`/projects/${p3.id}/order`, { order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: p3.id, order: '0', projectGroupId: null });
    expect(await sidebar(b.owner, b.space.id)).toEqual([[p3.id, null, '0'], [b.project.id, null, '1'], [p2.id, null, '2']]);
  });

  it('orders home and linked projects of a space as one list', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const guest = await b.f.project(b.owner, other.id, 'Guest');
    await t.as(b.owner).post(`/projects/${guest.id}/spaces`, { spaceId: b.space.id });
    const res = await t.as(b.owner).patch(`/projects/${guest.id}/order`, { order: 0, spaceId: b.space.id });
    expect(res.statusCode).toBe(200);
    expect(await sidebar(b.owner, b.space.id)).toEqual([[guest.id, null, '0'], [b.project.id, null, '1']]);
    // Its place in its home space is untouched.
    expect(res.json()).toMatchObject({ spaceId: other.id, order: '0' });
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/order`, { order: 0, spaceId: other.id }), 400, 'REFERENCE_NOT_FOUND');
  });

  it('keeps a space’s list dense under concurrent creates and moves', async () => {
    const b = await boardWithRoles(t, 0);
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => t.as(b.owner).post('/projects', { spaceId: b.space.id, name: `P${i}` })));
    expect(created.map((r) => r.statusCode)).toEqual(Array(5).fill(201));
    await Promise.all(created.map((r, i) => t.as(b.owner).patch(`/projects/${r.json().id}/order`, { order: i % 2 })));
    const orders = (await sidebar(b.owner, b.space.id)).map((row) => row[2]);
    expect(orders).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  commonCases(t, 'PATCH /projects/{id}/order', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      await b.f.project(b.owner, b.space.id, 'P2');
      return { url: `/projects/${b.project.id}/order`, owner: b.owner, body: { order: 1 }, badBody: { order: 1.5 }, forbidden: b.member };
    },
  });
});

describe('move a project to a group', () => {
  it('moves it into a group and out again, both lists staying dense', async () => {
    const b = await boardWithRoles(t, 0);
    const p2 = await b.f.project(b.owner, b.space.id, 'P2');
    const g = await newGroup(b.owner, b.space.id);
    const res = await t.as(b.owner).patch(`/projects/${b.project.id}/group`, { projectGroupId: g.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: b.project.id, projectGroupId: g.id, order: '0' });
    expect(await sidebar(b.owner, b.space.id)).toEqual([[p2.id, null, '0'], [b.project.id, g.id, '0']]);

    const back = await t.as(b.owner).patch(`/projects/${b.project.id}/group`, { projectGroupId: null, order: 0 });
    expect(back.json()).toMatchObject({ projectGroupId: null, order: '0' });
    expect(await sidebar(b.owner, b.space.id)).toEqual([[b.project.id, null, '0'], [p2.id, null, '1']]);
  });

  it('refuses a group of a space the project is not in (400, nothing changed)', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const g = await newGroup(b.owner, other.id);
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/group`, { projectGroupId: g.id }), 400, 'REFERENCE_NOT_FOUND');
    expect(await sidebar(b.owner, b.space.id)).toEqual([[b.project.id, null, '0']]);
  });

  commonCases(t, 'PATCH /projects/{id}/group', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const g = await newGroup(b.owner, b.space.id);
      return { url: `/projects/${b.project.id}/group`, owner: b.owner, body: { projectGroupId: g.id }, badBody: { order: 0 }, forbidden: b.reader };
    },
  });
});

describe('show a project in another space', () => {
  it('links it (editor in both spaces) into a group there', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const g = await newGroup(b.owner, other.id);
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id, projectGroupId: g.id });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ id: b.project.id, spaceId: b.space.id, linkedSpaceIds: [other.id], projectGroupId: null });
    expect(await sidebar(b.owner, other.id)).toEqual([[b.project.id, g.id, '0']]);
    expectProblem(await t.as(b.owner).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id }), 409, 'CONFLICT');
    expectProblem(await t.as(b.owner).post(`/projects/${b.project.id}/spaces`, { spaceId: b.space.id }), 409, 'CONFLICT');
  });

  it('needs editor rights in the target space as well (403, 404 if unseen)', async () => {
    const b = await boardWithRoles(t, 0);
    const editor = await b.f.spaceMember(b.owner, b.space.id, 'editor');
    const other = await b.f.space(b.owner, 'Other');
    expectProblem(await t.as(editor).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id }), 404, 'NOT_FOUND');
    await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${b.owner.organizationId}, ${other.id}, ${editor.id}, 'member')`);
    expectProblem(await t.as(editor).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id }), 403, 'FORBIDDEN');
    await t.sql(sql`update space_members set role = 'editor' where space_id = ${other.id} and user_id = ${editor.id}`);
    expect((await t.as(editor).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id })).statusCode).toBe(201);
  });

  commonCases(t, 'POST /projects/{id}/spaces', {
    method: 'POST',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const other = await b.f.space(b.owner, 'Other');
      return { url: `/projects/${b.project.id}/spaces`, owner: b.owner, body: { spaceId: other.id }, badBody: { spaceId: 0 }, forbidden: b.member };
    },
  });
});

describe('remove a project from another space', () => {
  it('unlinks it and renumbers that space’s list; the home space cannot be removed', async () => {
    const b = await boardWithRoles(t, 0);
    const other = await b.f.space(b.owner, 'Other');
    const local = await b.f.project(b.owner, other.id, 'Local');
    await t.as(b.owner).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id });
    await t.as(b.owner).patch(`/projects/${b.project.id}/order`, { order: 0, spaceId: other.id });
    expect(await sidebar(b.owner, other.id)).toEqual([[b.project.id, null, '0'], [local.id, null, '1']]);

    const res = await t.as(b.owner).delete(`/projects/${b.project.id}/spaces/${other.id}`);
    expect(res.statusCode).toBe(204);
    expect(await sidebar(b.owner, other.id)).toEqual([[local.id, null, '0']]);
    expect((await t.as(b.owner).get(`/projects/${b.project.id}`)).json().linkedSpaceIds).toEqual([]);
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/spaces/${other.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/spaces/${b.space.id}`), 400, 'BAD_REQUEST');
  });

  commonCases(t, 'DELETE /projects/{id}/spaces/{id}', {
    method: 'DELETE',
    async setup() {
      const b = await boardWithRoles(t, 0);
      const other = await b.f.space(b.owner, 'Other');
      await t.as(b.owner).post(`/projects/${b.project.id}/spaces`, { spaceId: other.id });
      return { url: `/projects/${b.project.id}/spaces/${other.id}`, owner: b.owner, forbidden: b.member };
    },
  });
});
