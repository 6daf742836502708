import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, fingerprint } from '../../../test/app.js';
import { useEmailTestApp } from '../../email/email.fixtures.js';
import { invitationKit } from './invitations.fixtures.js';

const kit = useEmailTestApp('invitations_accept');
const { t } = kit;
const k = invitationKit(kit);
const address = () => `guest-${randomUUID()}@example.test`;
const NEW_PASSWORD = 'a fresh invited passphrase';

const register = (token: string, body: unknown = { name: 'Nina New', password: NEW_PASSWORD }) => t.as(null).post(`/invitations/${token}/register`, body);
const spacesOf = (session: string) => t.app.inject({ method: 'GET', url: '/spaces', headers: { 'service-session': session } });

describe('GET /invitations/:token (public)', () => {
  it('says where the link leads, to whom, and whether that address has an account', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const { token } = await k.invite(owner, space.id, email, 'reader');
    const res = await t.as(null).get(`/invitations/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const [org] = await t.sql<{ name: string }>(sql`select name from organizations where id = ${owner.organizationId}`);
    expect(res.json()).toEqual({
      spaceId: space.id,
      spaceName: 'Design',
      organizationName: org!.name,
      role: 'reader',
      email,
      state: 'pending',
      expiresAt: expect.any(String),
      accountExists: false,
    });
    const existing = await t.org();
    const second = await k.invite(owner, space.id, existing.email);
    expect((await t.as(null).get(`/invitations/${second.token}`)).json().accountExists).toBe(true);
  });

  it('answers 404 to an unknown token and 400 to a malformed one', async () => {
    expectProblem(await t.as(null).get(`/invitations/${'x'.repeat(43)}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(null).get('/invitations/short'), 400, 'VALIDATION_FAILED');
  });
});

describe('accepting as a new user: POST /invitations/:token/register', () => {
  it('creates the account with the invited address, joins the organization and space, and signs in', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const { invitation, token } = await k.invite(owner, space.id, email, 'editor');
    const res = await register(token);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.user).toMatchObject({ email, name: 'Nina New', emailVerified: true, activeOrganizationId: owner.organizationId });
    expect(body.organization).toMatchObject({ id: owner.organizationId, role: 'member' });
    expect((await spacesOf(body.session)).json()).toMatchObject([{ id: space.id, role: 'editor' }]);
    expect((await t.as(null).post('/auth/login', { email, password: NEW_PASSWORD })).statusCode).toBe(201);
    // Spent: the link says so, and cannot be used twice.
    expect((await t.as(null).get(`/invitations/${token}`)).json()).toMatchObject({ state: 'accepted', accountExists: true });
    expectProblem(await register(token), 409, 'INVITATION_ACCEPTED');
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toEqual([]);
    const [row] = await t.sql<{ accepted_by_id: number }>(sql`select accepted_by_id::int from space_invitations where id = ${invitation.id}`);
    expect(row!.accepted_by_id).toBe(body.user.id);
    // Announced in the invitation's organization with the new user as the actor, as a join by link is.
    const events = await t.sql<{ type: string; actorId: number }>(
      sql`select type, actor_id::int as "actorId" from events where organization_id = ${owner.organizationId}
          and type in ('organization.member.created', 'space.member.added') and actor_id = ${body.user.id} order by id`,
    );
    expect(events.map((e) => e.type)).toEqual(['organization.member.created', 'space.member.added']);
    expect(t.logs.filter((l) => l.includes(token))).toEqual([]);
  });

  it('answers 409 EMAIL_TAKEN when the address has an account (sign in and accept instead), changing nothing', async () => {
    const { owner, space } = await k.space();
    const existing = await t.org();
    const { token } = await k.invite(owner, space.id, existing.email);
    const before = await fingerprint(t, [owner.organizationId, existing.organizationId], [existing.id]);
    expectProblem(await register(token), 409, 'EMAIL_TAKEN');
    expect(await fingerprint(t, [owner.organizationId, existing.organizationId], [existing.id])).toBe(before);
  });

  it('refuses a bad body with 400, creating nothing', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const { token } = await k.invite(owner, space.id, email);
    const before = await fingerprint(t, [owner.organizationId]);
    for (const body of [{}, { name: 'No Password' }, { name: '', password: NEW_PASSWORD }, { name: 'Short', password: 'short' }]) {
      expectProblem(await register(token, body), 400, 'VALIDATION_FAILED');
    }
    expect(await fingerprint(t, [owner.organizationId])).toBe(before);
    expect(await t.sql(sql`select id from users where email = ${email}`)).toEqual([]);
    expectProblem(await register('y'.repeat(43)), 404, 'NOT_FOUND');
  });
});

describe('accepting as an existing user: POST /invitations/:token/accept', () => {
  it('joins the signed-in account of that address to the organization and space; the active organization stays', async () => {
    const { owner, space } = await k.space();
    const guest = await t.org();
    const { token } = await k.invite(owner, space.id, guest.email.toUpperCase(), 'reader');
    const res = await t.as(guest).post(`/invitations/${token}/accept`);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ userId: guest.id, role: 'reader', invitedById: owner.id });
    const [membership] = await t.sql<{ role: string; active: boolean }>(
      sql`select role, active from organization_members where organization_id = ${owner.organizationId} and user_id = ${guest.id}`,
    );
    expect(membership).toEqual({ role: 'member', active: true });
    const [user] = await t.sql<{ active_organization_id: number }>(sql`select active_organization_id::int from users where id = ${guest.id}`);
    expect(user!.active_organization_id).toBe(guest.organizationId);
    expectProblem(await t.as(guest).post(`/invitations/${token}/accept`), 409, 'INVITATION_ACCEPTED');
  });

  it('refuses another account (403 INVITATION_EMAIL_MISMATCH), changing nothing', async () => {
    const { owner, space } = await k.space();
    const { token } = await k.invite(owner, space.id, address());
    const intruder = await t.org();
    const before = await fingerprint(t, [owner.organizationId, intruder.organizationId], [intruder.id]);
    expectProblem(await t.as(intruder).post(`/invitations/${token}/accept`), 403, 'INVITATION_EMAIL_MISMATCH');
    expect(await fingerprint(t, [owner.organizationId, intruder.organizationId], [intruder.id])).toBe(before);
  });

  it('answers 401 without a credential and 404 to an unknown token, changing nothing', async () => {
    const { owner, space } = await k.space();
    const { token } = await k.invite(owner, space.id, address());
    const before = await fingerprint(t, [owner.organizationId]);
    expectProblem(await t.as(null).post(`/invitations/${token}/accept`), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(await t.org()).post(`/invitations/${'z'.repeat(43)}/accept`), 404, 'NOT_FOUND');
    expect(await fingerprint(t, [owner.organizationId])).toBe(before);
  });

  it('refuses when the licence has no free seat (400 NO_FREE_SEATS), leaving the invitation pending', async () => {
    const { owner, space } = await k.space();
    const guest = await t.org();
    const { token } = await k.invite(owner, space.id, guest.email);
    await t.sql(sql`update organizations set available_users_count = 1 where id = ${owner.organizationId}`);
    expectProblem(await t.as(guest).post(`/invitations/${token}/accept`), 400, 'NO_FREE_SEATS');
    expect((await t.as(null).get(`/invitations/${token}`)).json().state).toBe('pending');
  });
});

describe('revoked and expired links', () => {
  it('a revoked link says so (410 INVITATION_REVOKED) to the signed-in and the new user alike', async () => {
    const { owner, space } = await k.space();
    const guest = await t.org();
    const mine = await k.invite(owner, space.id, guest.email);
    const theirs = await k.invite(owner, space.id, address());
    for (const { invitation } of [mine, theirs]) await t.as(owner).delete(`/spaces/${space.id}/invitations/${invitation.id}`);
    expect((await t.as(null).get(`/invitations/${mine.token}`)).json().state).toBe('revoked');
    expectProblem(await t.as(guest).post(`/invitations/${mine.token}/accept`), 410, 'INVITATION_REVOKED');
    expectProblem(await register(theirs.token), 410, 'INVITATION_REVOKED');
    const members = await t.sql(sql`select id from space_members where space_id = ${space.id} and user_id = ${guest.id}`);
    expect(members).toEqual([]);
  });

  it('an expired link says so (410 INVITATION_EXPIRED) once the clock passes 7 days; a resent one works', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const { invitation, token } = await k.invite(owner, space.id, email);
    await k.expire(invitation.id);
    expect((await t.as(null).get(`/invitations/${token}`)).json().state).toBe('expired');
    expectProblem(await register(token), 410, 'INVITATION_EXPIRED');
    expect(await t.sql(sql`select id from users where email = ${email}`)).toEqual([]);
    await t.as(owner).post(`/spaces/${space.id}/invitations/${invitation.id}/resend`);
    const fresh = await k.tokenFor(email);
    expect((await register(fresh)).statusCode).toBe(201);
  });
});

describe('an imported member without a password', () => {
  it('claims the account by accepting: the password is set and the space joined', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const [imported] = await t.sql<{ id: number }>(sql`insert into users (email, password_hash, name) values (${email}, '!invited', 'Imported') returning id::int`);
    const { token } = await k.invite(owner, space.id, email);
    expect((await t.as(null).get(`/invitations/${token}`)).json().accountExists).toBe(false);
    const res = await register(token, { name: 'Ina Imported', password: NEW_PASSWORD });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ id: imported!.id, name: 'Ina Imported' });
    expect((await t.as(null).post('/auth/login', { email, password: NEW_PASSWORD })).statusCode).toBe(201);
    expect((await t.as(null).post('/auth/login', { email, password: PASSWORD })).statusCode).toBe(401);
  });
});
