import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, fingerprint, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { factories } from '../../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function linked(role = 'member') {
  const owner = await t.org();
  const space = await f.space(owner, 'Design');
  const link = (await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role })).json() as { token: string; url: string; id: number };
  return { owner, space, link };
}

const activeOrganizationOf = async (user: TestUser) =>
  (await t.sql<{ id: number }>(sql`select active_organization_id as id from users where id = ${user.id}`))[0]!.id;

describe('POST /spaces/:id/invite-link', () => {
  it('creates an enabled link with an unguessable token; generating again replaces the token', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const res = await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'reader' });
    expect(res.statusCode).toBe(201);
    const first = res.json();
    expect(first).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      url: `/invite-links/${first.token}`,
      role: 'reader',
      enabled: true,
      createdById: owner.id,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false });
    const second = (await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'editor' })).json();
    expect(second).toMatchObject({ id: first.id, role: 'editor', enabled: true });
    expect(second.token).not.toBe(first.token);
    expectProblem(await t.as(null).get(first.url), 404, 'NOT_FOUND');
    expect((await t.as(null).get(second.url)).statusCode).toBe(200);
  });

  it('never gives admin through a link', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'admin' }), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'POST /spaces/:id/invite-link', {
    method: 'POST',
    setup: async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      return { url: `/spaces/${space.id}/invite-link`, owner, body: { role: 'member' }, badBody: { role: 'boss' }, forbidden: await f.spaceMember(owner, space.id, 'editor') };
    },
  });
});

describe('PATCH /spaces/:id/invite-link/enabled and /role', () => {
  it('disables, enables and changes the role, keeping the token', async () => {
    const { owner, space, link } = await linked();
    const off = await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ token: link.token, enabled: false });
    const role = await t.as(owner).patch(`/spaces/${space.id}/invite-link/role`, { role: 'reader' });
    expect(role.statusCode).toBe(200);
    expect(role.json()).toMatchObject({ token: link.token, enabled: false, role: 'reader' });
    expect((await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: true })).json().enabled).toBe(true);
  });

  it('answers 404 when the space has no link yet', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    expectProblem(await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false }), 404, 'NOT_FOUND');
    expectProblem(await t.as(owner).patch(`/spaces/${space.id}/invite-link/role`, { role: 'reader' }), 404, 'NOT_FOUND');
  });

  for (const [path, body, badBody] of [
    ['enabled', { enabled: false }, { enabled: 'no' }],
    ['role', { role: 'reader' }, { role: 'admin' }],
  ] as const) {
    commonCases(t, `PATCH /spaces/:id/invite-link/${path}`, {
      method: 'PATCH',
      setup: async () => {
        const { owner, space } = await linked();
        return { url: `/spaces/${space.id}/invite-link/${path}`, owner, body, badBody, forbidden: await f.spaceMember(owner, space.id, 'editor') };
      },
    });
  }
});

describe('GET /invite-links/:token (public)', () => {
  it('tells a visitor without a credential where the link leads', async () => {
    const { owner, space, link } = await linked('editor');
    const res = await t.as(null).get(`/invite-links/${link.token}`);
    expect(res.statusCode).toBe(200);
    const [org] = await t.sql<{ name: string }>(sql`select name from organizations where id = ${owner.organizationId}`);
    expect(res.json()).toEqual({ spaceId: space.id, spaceName: 'Design', organizationName: org!.name, role: 'editor', enabled: true });
    await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false });
    expect((await t.as(null).get(`/invite-links/${link.token}`)).json().enabled).toBe(false);
  });

  it('answers 404 to an unknown token and 400 to a malformed one', async () => {
    expectProblem(await t.as(null).get(`/invite-links/${'x'.repeat(43)}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(null).get('/invite-links/short'), 400, 'VALIDATION_FAILED');
  });
});

describe('POST /invite-links/:token/join', () => {
  it("joins a user of another organization to the link's organization and space; the active organization stays", async () => {
    const { owner, space, link } = await linked('member');
    const visitor = await t.org();
    const res = await t.as(visitor).post(`/invite-links/${link.token}/join`);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ userId: visitor.id, role: 'member', invitedById: owner.id, email: visitor.email });
    expect(await activeOrganizationOf(visitor)).toBe(visitor.organizationId);
    const [membership] = await t.sql<{ role: string; active: boolean }>(
      sql`select role, active from organization_members where organization_id = ${owner.organizationId} and user_id = ${visitor.id}`,
    );
    expect(membership).toEqual({ role: 'member', active: true });
    // After switching, the visitor sees the space with the link's role.
    await t.as(visitor).patch('/user/organizations/active', { organizationId: owner.organizationId });
    expect((await t.as(visitor).get('/spaces')).json()).toMatchObject([{ id: space.id, role: 'member', order: '0' }]);
  });

  it('keeps the role of someone already in the space', async () => {
    const { owner, space, link } = await linked('reader');
    const editor = await f.spaceMember(owner, space.id, 'editor');
    const res = await t.as(editor).post(`/invite-links/${link.token}/join`);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ userId: editor.id, role: 'editor' });
  });

  it('refuses a disabled link (400 LINK_DISABLED), changing nothing', async () => {
    const { owner, space, link } = await linked();
    await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false });
    const visitor = await t.org();
    const before = await fingerprint(t, [owner.organizationId, visitor.organizationId], [visitor.id]);
    expectProblem(await t.as(visitor).post(`/invite-links/${link.token}/join`), 400, 'LINK_DISABLED');
    expect(await fingerprint(t, [owner.organizationId, visitor.organizationId], [visitor.id])).toBe(before);
  });

  it('refuses when the licence has no free seat (400 NO_FREE_SEATS), changing nothing', async () => {
    const { owner, link } = await linked();
    await t.sql(sql`update organizations set available_users_count = 1 where id = ${owner.organizationId}`);
    const visitor = await t.org();
    const before = await fingerprint(t, [owner.organizationId, visitor.organizationId], [visitor.id]);
    expectProblem(await t.as(visitor).post(`/invite-links/${link.token}/join`), 400, 'NO_FREE_SEATS');
    expect(await fingerprint(t, [owner.organizationId, visitor.organizationId], [visitor.id])).toBe(before);
  });

  it('answers 401 without a credential and 404 to an unknown token', async () => {
    const { link } = await linked();
    expectProblem(await t.as(null).post(`/invite-links/${link.token}/join`), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(await t.org()).post(`/invite-links/${'y'.repeat(43)}/join`), 404, 'NOT_FOUND');
  });
});

describe('POST /auth/register with an invite token', () => {
  it("creates the user as a member of the link's organization and space, not a new organization", async () => {
    const { owner, space, link } = await linked('editor');
    const email = `invited-${Date.now()}@example.test`;
    const res = await t.as(null).post('/auth/register', { email, password: PASSWORD, name: 'Invited', inviteToken: link.token });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.organization).toMatchObject({ id: owner.organizationId, role: 'member' });
    expect(body.user.activeOrganizationId).toBe(owner.organizationId);
    const spaces = await t.app.inject({ method: 'GET', url: '/spaces', headers: { 'service-session': body.session } });
    expect(spaces.json()).toMatchObject([{ id: space.id, role: 'editor' }]);
    const [orgs] = await t.sql<{ n: number }>(sql`select count(*)::int as n from organization_members where user_id = ${body.user.id}`);
    expect(orgs!.n).toBe(1);
    // Announced in the link's organization, the new user as the actor, like a signed-in join.
    const events = await t.sql<{ type: string; actorId: number; spaceId: number | null }>(
      sql`select type, actor_id::int as "actorId", space_id::int as "spaceId" from events
          where organization_id = ${owner.organizationId} and type in ('organization.member.created', 'space.member.added') order by id`,
    );
    expect(events).toEqual([
      { type: 'organization.member.created', actorId: body.user.id, spaceId: null },
      { type: 'space.member.added', actorId: body.user.id, spaceId: space.id },
    ]);
  });

  it('refuses a disabled link and creates no user', async () => {
    const { owner, space, link } = await linked();
    await t.as(owner).patch(`/spaces/${space.id}/invite-link/enabled`, { enabled: false });
    const email = `refused-${Date.now()}@example.test`;
    expectProblem(await t.as(null).post('/auth/register', { email, password: PASSWORD, name: 'No', inviteToken: link.token }), 400, 'LINK_DISABLED');
    expect(await t.sql(sql`select id from users where email = ${email}`)).toHaveLength(0);
  });
});
