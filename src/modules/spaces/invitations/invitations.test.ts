import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { useEmailTestApp } from '../../email/email.fixtures.js';
import { INVITE_LINK, invitationKit } from './invitations.fixtures.js';

const kit = useEmailTestApp('invitations');
const { t, smtp, send } = kit;
const k = invitationKit(kit);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const address = () => `guest-${randomUUID()}@example.test`;

describe('POST /spaces/:id/invitations', () => {
  it('emails an accept link that works 7 days; only a hash of its token is stored', async () => {
    const { owner, space } = await k.space('Design <team>');
    const email = address();
    const res = await t.as(owner).post(`/spaces/${space.id}/invitations`, { email: email.toUpperCase(), role: 'editor' });
    expect(res.statusCode).toBe(201);
    const invitation = res.json();
    expect(invitation).toEqual({
      id: expect.any(Number),
      spaceId: space.id,
      email,
      role: 'editor',
      state: 'pending',
      invitedById: owner.id,
      expiresAt: expect.stringMatching(ISO_MS),
      sentAt: expect.stringMatching(ISO_MS),
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect((Date.parse(invitation.expiresAt) - Date.parse(invitation.sentAt)) / 86_400_000).toBeCloseTo(7, 3);
    await send();
    const [mail] = smtp.to(email);
    expect(mail!.subject).toBe('Olga Owner invited you to “Design <team>” in Workboard');
    expect(mail!.text).toContain('as an editor');
    expect(mail!.html).toContain('Design &lt;team&gt;');
    const token = await k.tokenFor(email);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail!.html).toContain(`href="${INVITE_LINK}${token}"`);
    const [row] = await t.sql<{ token_hash: string }>(sql`select token_hash from space_invitations where id = ${invitation.id}`);
    expect(row!.token_hash).not.toContain(token);
    // Nor is any log line written when the link's page is opened, or the link looked up.
    expect((await t.as(null).get(`/app/invitations/${token}`)).statusCode).toBeLessThan(504);
    expect((await t.as(null).get(`/invitations/${token}`)).statusCode).toBe(200);
    expect(t.logs.filter((l) => l.includes(token) || l.includes('/app/invitations/'))).toEqual([]);
    // (Other pages are logged as usual: the check above is not vacuous.)
    await t.as(null).get('/app/login');
    expect(t.logs.some((l) => l.includes('"/app/login"'))).toBe(true);
  });

  it('writes in the language of the address’s account, else in the inviter’s', async () => {
    const { owner, space } = await k.space();
    const russian = await t.org({ name: 'Анна' });
    await t.as(russian).patch('/user/language', { language: 'ru' });
    await k.invite(owner, space.id, russian.email);
    expect(smtp.to(russian.email).at(-1)!.subject).toBe('Olga Owner приглашает вас в «Design» в Workboard');
    const stranger = address();
    await k.invite(owner, space.id, stranger);
    expect(smtp.to(stranger).at(-1)!.subject).toMatch(/^Olga Owner invited you/);
    await t.as(owner).patch('/user/language', { language: 'ru' });
    const another = address();
    await k.invite(owner, space.id, another);
    expect(smtp.to(another).at(-1)!.text).toContain('роль: участник');
  });

  it('renews an open invitation of the same address instead of adding one; the old link stops working', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const first = await k.invite(owner, space.id, email, 'reader');
    const second = await k.invite(owner, space.id, email, 'editor');
    expect(second.invitation.id).toBe(first.invitation.id);
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toMatchObject([{ id: first.invitation.id, role: 'editor' }]);
    expectProblem(await t.as(null).get(`/invitations/${first.token}`), 404, 'NOT_FOUND');
    expect((await t.as(null).get(`/invitations/${second.token}`)).json().role).toBe('editor');
  });

  it('answers 409 ALREADY_SPACE_MEMBER for the address of a member, and 400 for admin, changing nothing', async () => {
    const { owner, space } = await k.space();
    const editor = await k.f.spaceMember(owner, space.id, 'editor');
    const before = await fingerprint(t, [owner.organizationId]);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invitations`, { email: editor.email.toUpperCase(), role: 'reader' }), 409, 'ALREADY_SPACE_MEMBER');
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invitations`, { email: address(), role: 'admin' }), 400, 'VALIDATION_FAILED');
    expect(await fingerprint(t, [owner.organizationId])).toBe(before);
  });

  commonCases(t, 'POST /spaces/:id/invitations', {
    method: 'POST',
    setup: async () => {
      const { owner, space } = await k.space();
      const forbidden = await k.f.spaceMember(owner, space.id, 'editor');
      return { url: `/spaces/${space.id}/invitations`, owner, body: { email: address(), role: 'member' }, badBody: { email: 'not an address', role: 'member' }, forbidden };
    },
  });
});

describe('GET /spaces/:id/invitations', () => {
  it('lists open invitations oldest first with paging headers; accepted and revoked ones leave the list, expired ones stay', async () => {
    const { owner, space } = await k.space();
    const a = await k.invite(owner, space.id, address());
    const b = await k.invite(owner, space.id, address(), 'reader');
    const c = await k.invite(owner, space.id, address());
    await k.expire(b.invitation.id);
    expect((await t.as(owner).delete(`/spaces/${space.id}/invitations/${c.invitation.id}`)).statusCode).toBe(204);
    const res = await t.as(owner).get(`/spaces/${space.id}/invitations?limit=1`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers.link).toBe(`</spaces/${space.id}/invitations?limit=1&offset=1>; rel="next"`);
    expect(res.json()).toMatchObject([{ id: a.invitation.id, state: 'pending' }]);
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations?offset=1`)).json()).toMatchObject([{ id: b.invitation.id, state: 'expired', role: 'reader' }]);
  });

  commonCases(t, 'GET /spaces/:id/invitations', {
    method: 'GET',
    setup: async () => {
      const { owner, space } = await k.space();
      return { url: `/spaces/${space.id}/invitations`, owner, forbidden: await k.f.spaceMember(owner, space.id, 'editor') };
    },
  });
});

describe('POST /spaces/:id/invitations/:invitationId/resend', () => {
  it('sends a new link with a new 7-day expiry; an expired invitation comes back to life, the old link is dead', async () => {
    const { owner, space } = await k.space();
    const email = address();
    const { invitation, token } = await k.invite(owner, space.id, email);
    await k.expire(invitation.id);
    expect((await t.as(null).get(`/invitations/${token}`)).json().state).toBe('expired');
    const res = await t.as(owner).post(`/spaces/${space.id}/invitations/${invitation.id}/resend`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: invitation.id, state: 'pending' });
    expect(Date.parse(res.json().expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const fresh = await k.tokenFor(email);
    expect(fresh).not.toBe(token);
    expect(smtp.to(email)).toHaveLength(2);
    expectProblem(await t.as(null).get(`/invitations/${token}`), 404, 'NOT_FOUND');
    expect((await t.as(null).get(`/invitations/${fresh}`)).json().state).toBe('pending');
  });

  it('refuses a revoked invitation (410) and one of another space (404)', async () => {
    const { owner, space } = await k.space();
    const other = await k.f.space(owner, 'Other');
    const { invitation } = await k.invite(owner, space.id, address());
    expectProblem(await t.as(owner).post(`/spaces/${other.id}/invitations/${invitation.id}/resend`), 404, 'NOT_FOUND');
    await t.as(owner).delete(`/spaces/${space.id}/invitations/${invitation.id}`);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invitations/${invitation.id}/resend`), 410, 'INVITATION_REVOKED');
  });

  commonCases(t, 'POST /spaces/:id/invitations/:invitationId/resend', {
    method: 'POST',
    setup: async () => {
      const { owner, space } = await k.space();
      const { invitation } = await k.invite(owner, space.id, address());
      return { url: `/spaces/${space.id}/invitations/${invitation.id}/resend`, owner, forbidden: await k.f.spaceMember(owner, space.id, 'editor') };
    },
  });
});

describe('DELETE /spaces/:id/invitations/:invitationId', () => {
  it('revokes: the link then says so, and revoking again is no error', async () => {
    const { owner, space } = await k.space();
    const { invitation, token } = await k.invite(owner, space.id, address());
    expect((await t.as(owner).delete(`/spaces/${space.id}/invitations/${invitation.id}`)).statusCode).toBe(204);
    expect((await t.as(null).get(`/invitations/${token}`)).json().state).toBe('revoked');
    expect((await t.as(owner).delete(`/spaces/${space.id}/invitations/${invitation.id}`)).statusCode).toBe(204);
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toEqual([]);
  });

  commonCases(t, 'DELETE /spaces/:id/invitations/:invitationId', {
    method: 'DELETE',
    setup: async () => {
      const { owner, space } = await k.space();
      const { invitation } = await k.invite(owner, space.id, address());
      return { url: `/spaces/${space.id}/invitations/${invitation.id}`, owner, forbidden: await k.f.spaceMember(owner, space.id, 'editor') };
    },
  });
});

describe('POST /spaces/:id/members (share) with email on', () => {
  it('invites the addresses outside the organization by email, answering {members, emailed} as before', async () => {
    const { owner, space } = await k.space();
    const colleague = await t.member(owner);
    const outside = address();
    const res = await t.as(owner).post(`/spaces/${space.id}/members`, { emails: [colleague.email, outside.toUpperCase()], role: 'reader' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ members: [{ userId: colleague.id, role: 'reader' }], emailed: [outside] });
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toMatchObject([{ email: outside, role: 'reader', state: 'pending' }]);
    await send();
    expect(smtp.to(outside)).toHaveLength(1);
    expect(smtp.to(colleague.email)).toEqual([]);
  });

  it('refuses admin for people outside the organization (400), changing nothing', async () => {
    const { owner, space } = await k.space();
    const colleague = await t.member(owner);
    const before = await fingerprint(t, [owner.organizationId], [colleague.id]);
    const res = await t.as(owner).post(`/spaces/${space.id}/members`, { emails: [colleague.email, address()], role: 'admin' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(await fingerprint(t, [owner.organizationId], [colleague.id])).toBe(before);
  });
});
