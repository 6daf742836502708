import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { PNG, blobCount, keyOf, sendFile } from '../files/files.fixtures.js';

const t = useTestApp();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isoOrNull = (v: unknown) => v === null || (typeof v === 'string' && ISO_MS.test(v));

// service-interface.md "Organization (current user's organization)", plus routes.md's extras (aiEnabled, role).
const ORGANIZATION_KEYS = [
  'activeOrganizationUsersCount', 'aiEnabled', 'availableUsersCount', 'avatar', 'createdAt', 'id', 'licenseEndDate', 'members', 'name',
  'ownerId', 'role', 'subscription', 'trialEndDate', 'uniqueSpaceUsersCount', 'updatedAt',
];
const MEMBER_KEYS = [
  'active', 'avatar', 'birthDate', 'codeHostLink', 'deleted', 'email', 'id', 'jobTitle', 'lastActivityDate', 'messengerConnected', 'messengerLink', 'name', 'pending', 'phoneNumber', 'role', 'userId',
];
const SUBSCRIPTION_KEYS = ['active', 'datePay', 'id', 'interval', 'price', 'usersCount'];

/** Asserts the exact Organization form, with the types the spec gives. */
function expectOrganizationForm(org: Record<string, unknown>): void {
  expect(Object.keys(org).sort()).toEqual(ORGANIZATION_KEYS);
  for (const key of ['id', 'ownerId', 'activeOrganizationUsersCount', 'uniqueSpaceUsersCount', 'availableUsersCount']) expect(Number.isInteger(org[key]), key).toBe(true);
  for (const key of ['createdAt', 'updatedAt', 'licenseEndDate', 'trialEndDate']) expect(org[key], key).toMatch(ISO_MS);
  expect(org.name === null || typeof org.name === 'string').toBe(true);
  expect(org.avatar === null || typeof org.avatar === 'string').toBe(true);
  expect(typeof org.aiEnabled).toBe('boolean');
  expect(['owner', 'admin', 'member']).toContain(org.role);
  const s = org.subscription as Record<string, unknown>;
  expect(Object.keys(s).sort()).toEqual(SUBSCRIPTION_KEYS);
  expect(Number.isInteger(s.id) && Number.isInteger(s.usersCount) && Number.isInteger(s.interval)).toBe(true);
  expect(typeof s.active).toBe('boolean');
  expect(typeof s.price).toBe('number');
  expect(isoOrNull(s.datePay)).toBe(true);
  for (const m of org.members as Array<Record<string, unknown>>) {
    expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    expect(Number.isInteger(m.id) && Number.isInteger(m.userId)).toBe(true);
    expect(typeof m.name === 'string' && typeof m.email === 'string').toBe(true);
    for (const key of ['avatar', 'phoneNumber', 'messengerLink', 'jobTitle', 'codeHostLink']) expect(m[key] === null || typeof m[key] === 'string', key).toBe(true);
    expect(isoOrNull(m.birthDate) && isoOrNull(m.lastActivityDate)).toBe(true);
    expect(typeof m.deleted === 'boolean' && typeof m.active === 'boolean').toBe(true);
  }
}

describe('GET /user/organization', () => {
  it('answers exactly the spec’s Organization form', async () => {
    const owner = await t.org({ name: 'Olga' });
    const member = await t.member(owner);
    await t.as(member).patch('/user/birth-date', { birthDate: '1991-02-03T00:00:00.000Z' });
    await t.as(member).patch('/user/job-title', { jobTitle: 'Analyst' });
    const res = await t.as(member).get('/user/organization');
    expect(res.statusCode).toBe(200);
    const org = res.json();
    expectOrganizationForm(org);
    expect(org).toMatchObject({
      id: owner.organizationId,
      name: "Olga's organization",
      avatar: null,
      ownerId: owner.id,
      activeOrganizationUsersCount: 2,
      uniqueSpaceUsersCount: 0,
      availableUsersCount: t.config.trialUsers,
      aiEnabled: false,
      role: 'member',
      subscription: { active: false, price: 0, usersCount: t.config.trialUsers, interval: 1, datePay: null },
    });
    expect(org.trialEndDate).toBe(org.licenseEndDate);
    expect(new Date(org.trialEndDate).getTime() - new Date(org.createdAt).getTime()).toBeCloseTo(t.config.trialDays * 86_400_000, -5);
    expect(org.members).toEqual([
      expect.objectContaining({ userId: owner.id, name: 'Olga', email: owner.email, role: 'owner', active: true, deleted: false }),
      expect.objectContaining({ userId: member.id, email: member.email, role: 'member', jobTitle: 'Analyst', birthDate: '1991-02-03T00:00:00.000Z' }),
    ]);
  });

  it('shows another organization to nobody: each user sees their own', async () => {
    const a = await t.org();
    const b = await t.org();
    expect((await t.as(a).get('/user/organization')).json().id).toBe(a.organizationId);
    expect((await t.as(b).get('/user/organization')).json().members.map((m: { userId: number }) => m.userId)).toEqual([b.id]);
  });

  commonCases(t, 'GET /user/organization', { method: 'GET', setup: async (kit) => ({ url: '/user/organization', owner: await kit.org() }) });
});

describe('GET /user/organizations', () => {
  it('lists every organization of the user with role and active flag', async () => {
    const owner = await t.org();
    const member = await t.member(owner, 'admin');
    const res = await t.as(member).get('/user/organizations');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    const list = res.json() as Array<Record<string, unknown>>;
    expect(list.map((o) => Object.keys(o).sort())).toEqual([['active', 'avatar', 'id', 'name', 'role'], ['active', 'avatar', 'id', 'name', 'role']]);
    expect(list).toEqual(
      expect.arrayContaining([
        { id: owner.organizationId, name: expect.any(String), avatar: null, role: 'admin', active: true },
        { id: expect.any(Number), name: expect.any(String), avatar: null, role: 'owner', active: false },
      ]),
    );
  });

  it('pages with limit and offset, announcing the next page', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const first = await t.as(member).get('/user/organizations?limit=1');
    expect(first.json()).toHaveLength(1);
    expect(first.headers['x-total-count']).toBe('2');
    expect(first.headers.link).toBe('</user/organizations?limit=1&offset=1>; rel="next"');
    const second = await t.as(member).get('/user/organizations?limit=1&offset=1');
    expect(second.json()).toHaveLength(1);
    expect(second.headers.link).toBeUndefined();
    expectProblem(await t.as(member).get('/user/organizations?limit=0'), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'GET /user/organizations', { method: 'GET', setup: async (kit) => ({ url: '/user/organizations', owner: await kit.org() }) });
});

describe('POST /user/organizations', () => {
  it('creates an organization owned by the caller and switches to it', async () => {
    const user = await t.org();
    const res = await t.as(user).post('/user/organizations', { name: '  Second Org  ' });
    expect(res.statusCode).toBe(201);
    const org = res.json();
    expectOrganizationForm(org);
    expect(org).toMatchObject({ name: 'Second Org', ownerId: user.id, role: 'owner', activeOrganizationUsersCount: 1 });
    expect(org.id).not.toBe(user.organizationId);
    expect((await t.as(user).get('/user')).json().activeOrganizationId).toBe(org.id);
    expect((await t.as(user).get('/user/organization')).json().id).toBe(org.id);
    const list = (await t.as(user).get('/user/organizations')).json() as Array<{ id: number; active: boolean }>;
    expect(list.filter((o) => o.active).map((o) => o.id)).toEqual([org.id]);
  });

  commonCases(t, 'POST /user/organizations', {
    method: 'POST',
    setup: async (kit) => ({ url: '/user/organizations', owner: await kit.org(), body: { name: 'New' }, badBody: { name: '' } }),
  });
});

describe('PATCH /user/organization/name', () => {
  it('renames the organization (admin)', async () => {
    const owner = await t.org();
    const admin = await t.member(owner, 'admin');
    const res = await t.as(admin).patch('/user/organization/name', { name: 'Renamed Ltd' });
    expect(res.statusCode).toBe(200);
    expectOrganizationForm(res.json());
    expect(res.json()).toMatchObject({ id: owner.organizationId, name: 'Renamed Ltd', role: 'admin' });
    expect((await t.as(owner).get('/user/organization')).json().name).toBe('Renamed Ltd');
  });

  commonCases(t, 'PATCH /user/organization/name', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      return { url: '/user/organization/name', owner, body: { name: 'X' }, badBody: { name: '   ' }, forbidden: await kit.member(owner) };
    },
  });
});

describe('PATCH /user/organization/avatar', () => {
  it('stores the image; members can download it, other organizations cannot', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const stranger = await t.org();
    const res = await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: PNG, filename: 'logo.png' });
    expect(res.statusCode).toBe(200);
    expectOrganizationForm(res.json());
    const link = res.json().avatar as string;
    expect(link).toMatch(/^\/files\/[0-9a-f-]{36}$/);
    const download = await t.as(member).get(link);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.rawPayload.equals(PNG)).toBe(true);
    expectProblem(await t.as(stranger).get(link), 404);
    expectProblem(await t.as(null).get(link), 401);
    expect((await t.as(member).get('/user/organizations')).json()[0].avatar).toBe(link);
  });

  it('replaces the previous avatar and deletes it', async () => {
    const owner = await t.org();
    const first = (await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: PNG })).json().avatar as string;
    const second = (await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: PNG })).json().avatar as string;
    expect(second).not.toBe(first);
    expectProblem(await t.as(owner).get(first), 404);
    expect(await t.sql(sql`select id from files where key = ${keyOf(first)}::uuid`)).toHaveLength(0);
  });

  it('refuses a non-image with 400 INVALID_FILE, changing nothing', async () => {
    const owner = await t.org();
    const before = [await fingerprint(t, [owner.organizationId]), await blobCount(t)];
    expectProblem(await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: '%PDF-1.4 not an image', filename: 'logo.png' }), 400, 'INVALID_FILE');
    expect([await fingerprint(t, [owner.organizationId]), await blobCount(t)]).toEqual(before);
  });

  it('refuses a member with 403 before storing the upload', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const blobs = await blobCount(t);
    expectProblem(await sendFile(t, member, 'PATCH', '/user/organization/avatar', { data: PNG }), 403, 'FORBIDDEN');
    expect(await blobCount(t)).toBe(blobs);
  });

  commonCases(t, 'PATCH /user/organization/avatar', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      return { url: '/user/organization/avatar', owner, forbidden: await kit.member(owner) };
    },
  });
});

describe('PATCH /user/organizations/active', () => {
  it('switches the active organization to another one the user belongs to', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const [own] = await t.sql<{ id: number }>(sql`select id from organizations where owner_id = ${member.id}`);
    const res = await t.as(member).patch('/user/organizations/active', { organizationId: own!.id });
    expect(res.statusCode).toBe(200);
    expectOrganizationForm(res.json());
    expect(res.json()).toMatchObject({ id: own!.id, role: 'owner' });
    expect((await t.as(member).get('/user')).json().activeOrganizationId).toBe(own!.id);
    expect((await t.as(member).get('/user/organization')).json().id).toBe(own!.id);
  });

  it('answers 404 for an organization the user is not in, or was removed from, changing nothing', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const stranger = await t.org();
    const [own] = await t.sql<{ id: number }>(sql`select id from organizations where owner_id = ${member.id}`);
    await t.as(member).patch('/user/organizations/active', { organizationId: own!.id });
    expect((await t.as(owner).delete(`/user/organization/members/${member.id}`)).statusCode).toBe(204);
    const before = await fingerprint(t, [owner.organizationId, stranger.organizationId, own!.id], [member.id]);
    for (const organizationId of [stranger.organizationId, owner.organizationId, 2 ** 40]) {
      expectProblem(await t.as(member).patch('/user/organizations/active', { organizationId }), 404, 'NOT_FOUND');
    }
    expect(await fingerprint(t, [owner.organizationId, stranger.organizationId, own!.id], [member.id])).toBe(before);
  });

  commonCases(t, 'PATCH /user/organizations/active', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      return { url: '/user/organizations/active', owner, body: { organizationId: owner.organizationId }, badBody: { organizationId: 'first' } };
    },
  });
});
