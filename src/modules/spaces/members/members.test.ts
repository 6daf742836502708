import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { factories } from '../../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const roles = async (spaceId: number) =>
  t.sql<{ userId: number; role: string }>(sql`select user_id as "userId", role from space_members where space_id = ${spaceId} order by id`);

describe('GET /spaces/:id/members', () => {
  it('lists members oldest first, in the SpaceMember form, with paging headers', async () => {
    const owner = await t.org({ name: 'Olga' });
    const space = await f.space(owner);
    const reader = await f.spaceMember(owner, space.id, 'reader');
    const res = await t.as(reader).get(`/spaces/${space.id}/members?limit=1`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers.link).toBe(`</spaces/${space.id}/members?limit=1&offset=1>; rel="next"`);
    expect(res.json()).toEqual([
      {
        id: expect.any(Number),
        userId: owner.id,
        name: 'Olga',
        email: owner.email,
        avatar: null,
        role: 'admin',
        joinedAt: expect.stringMatching(ISO_MS),
        invitedById: owner.id,
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
    const second = (await t.as(reader).get(`/spaces/${space.id}/members?offset=1`)).json();
    expect(second).toMatchObject([{ userId: reader.id, role: 'reader', invitedById: owner.id }]);
  });

  commonCases(t, 'GET /spaces/:id/members', {
    method: 'GET',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}/members`, owner };
    },
  });
});

describe('POST /spaces/:id/members (share)', () => {
  it('adds organization users by id and by email; returns other emails as `emailed`', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const link = (await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'reader' })).json();
    const byId = await t.member(owner);
    const byEmail = await t.member(owner);
    const outsider = await t.org();
    const res = await t.as(owner).post(`/spaces/${space.id}/members`, {
      userIds: [byId.id],
      emails: [byEmail.email.toUpperCase(), outsider.email, 'New.Person@Example.test', 'new.person@example.test'],
      role: 'editor',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.emailed).toEqual([outsider.email.toLowerCase(), 'new.person@example.test']);
    expect(body.members.map((m: { userId: number; role: string }) => [m.userId, m.role])).toEqual([
      [byId.id, 'editor'],
      [byEmail.id, 'editor'],
    ]);
    expect(body.members[0]).toMatchObject({ invitedById: owner.id, email: byId.email });
    // The newcomers see the space, last in their sidebar; the invite link was left as it was.
    expect((await t.as(byEmail).get('/spaces')).json()).toMatchObject([{ id: space.id, role: 'editor', order: '0' }]);
    expect((await t.as(owner).get(`/spaces/${space.id}`)).json().inviteLink).toEqual(link);
    expect(await roles(space.id)).toHaveLength(3);
  });

  it('keeps the role of users already in the space and can be retried', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const editor = await f.spaceMember(owner, space.id, 'editor');
    const again = await t.as(owner).post(`/spaces/${space.id}/members`, { userIds: [editor.id, owner.id], role: 'reader' });
    expect(again.statusCode).toBe(201);
    expect(again.json().members.map((m: { role: string }) => m.role).sort()).toEqual(['admin', 'editor']);
    expect(await roles(space.id)).toEqual([
      { userId: owner.id, role: 'admin' },
      { userId: editor.id, role: 'editor' },
    ]);
  });

  it('refuses users outside the organization (400) and an empty share (400), adding no one', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const colleague = await t.member(owner);
    const stranger = await t.org();
    const res = await t.as(owner).post(`/spaces/${space.id}/members`, { userIds: [colleague.id, stranger.id], role: 'member' });
    const problem = expectProblem(res, 400, 'REFERENCE_NOT_FOUND');
    expect(problem.errors).toEqual([{ path: '/userIds/1', message: 'is not an active member of the organization' }]);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/members`, { role: 'member' }), 400, 'VALIDATION_FAILED');
    expect(await roles(space.id)).toHaveLength(1);
  });

  it('does not add a deactivated member', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const inactive = await t.member(owner);
    await t.sql(sql`update organization_members set active = false where user_id = ${inactive.id} and organization_id = ${owner.organizationId}`);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/members`, { userIds: [inactive.id], role: 'member' }), 400, 'REFERENCE_NOT_FOUND');
    const byMail = await t.as(owner).post(`/spaces/${space.id}/members`, { emails: [inactive.email], role: 'member' });
    expect(byMail.json()).toEqual({ members: [], emailed: [inactive.email.toLowerCase()] });
  });

  commonCases(t, 'POST /spaces/:id/members', {
    method: 'POST',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const colleague = await t.member(owner);
      return {
        url: `/spaces/${space.id}/members`,
        owner,
        body: { userIds: [colleague.id], role: 'member' },
        badBody: { userIds: [colleague.id], role: 'owner' },
        forbidden: await f.spaceMember(owner, space.id, 'editor'),
        userIds: [colleague.id],
      };
    },
  });
});

describe('DELETE /spaces/:id/members/:userId', () => {
  it('lets an admin remove a member, whose sidebar closes the gap', async () => {
    const owner = await t.org();
    const space = await f.space(owner, 'First');
    const other = await f.space(owner, 'Second');
    const member = await f.spaceMember(owner, space.id, 'member');
    await t.as(owner).post(`/spaces/${other.id}/members`, { userIds: [member.id], role: 'member' });
    const res = await t.as(owner).delete(`/spaces/${space.id}/members/${member.id}`);
    expect(res.statusCode).toBe(204);
    expect((await t.as(member).get('/spaces')).json()).toMatchObject([{ name: 'Second', order: '0' }]);
    expectProblem(await t.as(member).get(`/spaces/${space.id}`), 404);
    expectProblem(await t.as(owner).delete(`/spaces/${space.id}/members/${member.id}`), 404, 'NOT_FOUND');
  });

  it('lets any member leave, but not the last admin', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const reader = await f.spaceMember(owner, space.id, 'reader');
    expect((await t.as(reader).delete(`/spaces/${space.id}/members/${reader.id}`)).statusCode).toBe(204);
    expectProblem(await t.as(owner).delete(`/spaces/${space.id}/members/${owner.id}`), 400, 'LAST_SPACE_ADMIN');
    const admin = await f.spaceMember(owner, space.id, 'admin');
    expect((await t.as(owner).delete(`/spaces/${space.id}/members/${owner.id}`)).statusCode).toBe(204);
    expect(await roles(space.id)).toEqual([{ userId: admin.id, role: 'admin' }]);
  });

  commonCases(t, 'DELETE /spaces/:id/members/:userId', {
    method: 'DELETE',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const member = await f.spaceMember(owner, space.id, 'member');
      return { url: `/spaces/${space.id}/members/${member.id}`, owner, forbidden: await f.spaceMember(owner, space.id, 'editor'), userIds: [member.id] };
    },
  });
});

describe('PATCH /spaces/:id/members/:userId/role', () => {
  it('sets a role; refuses to demote the last admin', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const member = await f.spaceMember(owner, space.id, 'member');
    const res = await t.as(owner).patch(`/spaces/${space.id}/members/${member.id}/role`, { role: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ userId: member.id, role: 'admin' });
    expect((await t.as(owner).patch(`/spaces/${space.id}/members/${owner.id}/role`, { role: 'reader' })).json().role).toBe('reader');
    expectProblem(await t.as(member).patch(`/spaces/${space.id}/members/${member.id}/role`, { role: 'editor' }), 400, 'LAST_SPACE_ADMIN');
    expect(await roles(space.id)).toEqual([
      { userId: owner.id, role: 'reader' },
      { userId: member.id, role: 'admin' },
    ]);
    // The organization owner still acts as an admin of the space.
    expect((await t.as(owner).patch(`/spaces/${space.id}/members/${owner.id}/role`, { role: 'admin' })).statusCode).toBe(200);
  });

  it('answers 404 for a user who is not a member', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const colleague = await t.member(owner);
    expectProblem(await t.as(owner).patch(`/spaces/${space.id}/members/${colleague.id}/role`, { role: 'reader' }), 404, 'NOT_FOUND');
  });

  commonCases(t, 'PATCH /spaces/:id/members/:userId/role', {
    method: 'PATCH',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const member = await f.spaceMember(owner, space.id, 'member');
      return {
        url: `/spaces/${space.id}/members/${member.id}/role`,
        owner,
        body: { role: 'editor' },
        badBody: { role: 'owner' },
        forbidden: await f.spaceMember(owner, space.id, 'editor'),
        userIds: [member.id],
      };
    },
  });
});
