import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const t = useTestApp();
const MEMBER_KEYS = [
  'active', 'avatar', 'birthDate', 'codeHostLink', 'deleted', 'email', 'id', 'jobTitle', 'lastActivityDate', 'messengerConnected', 'messengerLink', 'name', 'pending', 'phoneNumber', 'role', 'userId',
];

const memberOf = async (viewer: TestUser, userId: number) =>
  ((await t.as(viewer).get('/user/organization')).json().members as Array<{ userId: number; role: string; active: boolean; deleted: boolean }>).find(
    (m) => m.userId === userId,
  );

/** Proves a refused request changed nothing in the organization or for the users involved. */
async function unchanged(orgIds: number[], users: TestUser[], run: () => Promise<void>): Promise<void> {
  const before = await fingerprint(t, orgIds, users.map((u) => u.id));
  await run();
  expect(await fingerprint(t, orgIds, users.map((u) => u.id))).toBe(before);
}

describe('PATCH /user/organization/owner', () => {
  it('hands ownership to a member; the old owner becomes an admin', async () => {
    const owner = await t.org();
    const heir = await t.member(owner);
    const res = await t.as(owner).patch('/user/organization/owner', { ownerId: heir.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: owner.organizationId, ownerId: heir.id, role: 'admin' });
    expect(await memberOf(heir, heir.id)).toMatchObject({ role: 'owner' });
    expect(await memberOf(heir, owner.id)).toMatchObject({ role: 'admin' });
    // The old owner now acts as an admin at once: ownership is no longer theirs to give.
    expectProblem(await t.as(owner).patch('/user/organization/owner', { ownerId: owner.id }), 403, 'FORBIDDEN');
    expect((await t.as(heir).get('/user/organization')).json().role).toBe('owner');
  });

  it('answers 404 for a user of another organization and 400 for a deactivated member, changing nothing', async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const idle = await t.member(owner);
    await t.as(owner).patch(`/user/organization/members/${idle.id}/active`, { active: false });
    await unchanged([owner.organizationId, stranger.organizationId], [owner, stranger, idle], async () => {
      expectProblem(await t.as(owner).patch('/user/organization/owner', { ownerId: stranger.id }), 404, 'NOT_FOUND');
      expectProblem(await t.as(owner).patch('/user/organization/owner', { ownerId: idle.id }), 400, 'VALIDATION_FAILED');
    });
  });

  commonCases(t, 'PATCH /user/organization/owner', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      const heir = await kit.member(owner);
      return { url: '/user/organization/owner', owner, body: { ownerId: heir.id }, badBody: { ownerId: -1 }, forbidden: await kit.member(owner, 'admin'), userIds: [heir.id] };
    },
  });
});

describe('PATCH /user/organization/ai-enabled', () => {
  it('turns the AI integration on and off (admin)', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    const on = await t.as(admin).patch('/user/organization/ai-enabled', { aiEnabled: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ id: owner.organizationId, aiEnabled: true });
    expect((await t.as(owner).get('/user/organization')).json().aiEnabled).toBe(true);
    expect((await t.as(owner).patch('/user/organization/ai-enabled', { aiEnabled: false })).json().aiEnabled).toBe(false);
  });

  commonCases(t, 'PATCH /user/organization/ai-enabled', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      return { url: '/user/organization/ai-enabled', owner, body: { aiEnabled: true }, badBody: { aiEnabled: 'yes' }, forbidden: await kit.member(owner) };
    },
  });
});

describe('DELETE /user/organization/members/{userId}', () => {
  it('removes a member: 204, their session answers 401 at once, their API token is revoked', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    const leaver = await t.member(owner);
    const token = (await t.as(leaver).post('/user/api-tokens', { name: 'ci' })).json().token as string;
    const res = await t.as(admin).delete(`/user/organization/members/${leaver.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectProblem(await t.as(leaver).get('/user'), 401, 'ACCOUNT_DEACTIVATED');
    expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: `Bearer ${token}` } }), 401);
    const org = (await t.as(owner).get('/user/organization')).json();
    expect(org.activeOrganizationUsersCount).toBe(2);
    expect(org.members.find((m: { userId: number }) => m.userId === leaver.id)).toMatchObject({ deleted: true, active: false });
  });

  it('protects the owner (400 OWNER_PROTECTED) and answers 404 for a non-member, changing nothing', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    const stranger = await t.org();
    await unchanged([owner.organizationId, stranger.organizationId], [owner, admin, stranger], async () => {
      expectProblem(await t.as(admin).delete(`/user/organization/members/${owner.id}`), 400, 'OWNER_PROTECTED');
      expectProblem(await t.as(admin).delete(`/user/organization/members/${stranger.id}`), 404, 'NOT_FOUND');
    });
    expect((await t.as(owner).get('/user')).statusCode).toBe(200);
  });

  commonCases(t, 'DELETE /user/organization/members/{userId}', {
    method: 'DELETE',
    setup: async (kit) => {
      const owner = await kit.org();
      const target = await kit.member(owner);
      return { url: `/user/organization/members/${target.id}`, owner, forbidden: await kit.member(owner), userIds: [target.id] };
    },
  });
});

describe('PATCH /user/organization/members/{userId}/role', () => {
  it('grants and takes administrator rights, answering the Member', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const res = await t.as(owner).patch(`/user/organization/members/${member.id}/role`, { role: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(MEMBER_KEYS);
    expect(res.json()).toMatchObject({ userId: member.id, role: 'admin', active: true, deleted: false });
    expect((await t.as(member).patch('/user/organization/name', { name: 'Now I may' })).statusCode).toBe(200);
    expect((await t.as(owner).patch(`/user/organization/members/${member.id}/role`, { role: 'member' })).json().role).toBe('member');
    expectProblem(await t.as(member).patch('/user/organization/name', { name: 'Not any more' }), 403, 'FORBIDDEN');
  });

  it('protects the owner with 400 OWNER_PROTECTED', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    await unchanged([owner.organizationId], [owner], async () => {
      expectProblem(await t.as(admin).patch(`/user/organization/members/${owner.id}/role`, { role: 'member' }), 400, 'OWNER_PROTECTED');
    });
  });

  commonCases(t, 'PATCH /user/organization/members/{userId}/role', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      const target = await kit.member(owner);
      return { url: `/user/organization/members/${target.id}/role`, owner, body: { role: 'admin' }, badBody: { role: 'owner' }, forbidden: await kit.member(owner), userIds: [target.id] };
    },
  });
});

describe('PATCH /user/organization/members/{userId}/active', () => {
  it('deactivates a member (their session answers 401 at once) and reactivates them', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const off = await t.as(owner).patch(`/user/organization/members/${member.id}/active`, { active: false });
    expect(off.statusCode).toBe(200);
    expect(Object.keys(off.json()).sort()).toEqual(MEMBER_KEYS);
    expect(off.json()).toMatchObject({ userId: member.id, active: false, deleted: false });
    expectProblem(await t.as(member).get('/user'), 401, 'ACCOUNT_DEACTIVATED');
    expect((await t.as(owner).get('/user/organization')).json().activeOrganizationUsersCount).toBe(1);
    const on = await t.as(owner).patch(`/user/organization/members/${member.id}/active`, { active: true });
    expect(on.json()).toMatchObject({ userId: member.id, active: true });
    expect((await t.as(member).get('/user')).statusCode).toBe(200);
  });

  it('refuses a reactivation beyond the licence seats with 400 NO_FREE_SEATS, changing nothing', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    await t.sql(sql`update organizations set available_users_count = 2 where id = ${owner.organizationId}`);
    await t.as(owner).patch(`/user/organization/members/${member.id}/active`, { active: false });
    await t.member(owner); // takes the freed seat
    await unchanged([owner.organizationId], [owner, member], async () => {
      expectProblem(await t.as(owner).patch(`/user/organization/members/${member.id}/active`, { active: true }), 400, 'NO_FREE_SEATS');
    });
    expectProblem(await t.as(member).get('/user'), 401);
  });

  it('protects the owner with 400 OWNER_PROTECTED', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    await unchanged([owner.organizationId], [owner], async () => {
      expectProblem(await t.as(admin).patch(`/user/organization/members/${owner.id}/active`, { active: false }), 400, 'OWNER_PROTECTED');
    });
  });

  commonCases(t, 'PATCH /user/organization/members/{userId}/active', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      const target = await kit.member(owner);
      return { url: `/user/organization/members/${target.id}/active`, owner, body: { active: false }, badBody: { active: 'no' }, forbidden: await kit.member(owner), userIds: [target.id] };
    },
  });
});
