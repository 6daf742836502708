import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp } from '../../../test/app.js';
import { factories } from '../../../test/factories.js';

// Without SMTP_URL: inviting by email says so, and the share route behaves exactly as before email.
const t = useTestApp();
const f = factories(t);

describe('invitations without SMTP_URL', () => {
  it('answers 409 EMAIL_NOT_CONFIGURED to create and resend, changing nothing', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    expect(t.app.config.email.smtpUrl).toBeNull();
    const [row] = await t.sql<{ id: number }>(
      sql`insert into space_invitations (organization_id, space_id, email, role, token_hash, expires_at)
          values (${owner.organizationId}, ${space.id}, 'earlier@example.test', 'member', ${`hash-${space.id}`}, now() + interval '1 day') returning id::int`,
    );
    const before = await fingerprint(t, [owner.organizationId]);
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invitations`, { email: 'new@example.test', role: 'member' }), 409, 'EMAIL_NOT_CONFIGURED');
    expectProblem(await t.as(owner).post(`/spaces/${space.id}/invitations/${row!.id}/resend`), 409, 'EMAIL_NOT_CONFIGURED');
    expect(await fingerprint(t, [owner.organizationId])).toBe(before);
    // Revoking and listing need no email.
    expect((await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toMatchObject([{ id: row!.id, state: 'pending' }]);
    expect((await t.as(owner).delete(`/spaces/${space.id}/invitations/${row!.id}`)).statusCode).toBe(204);
  });

  it('share returns outside addresses in `emailed` and invites nobody, admin role included', async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    const res = await t.as(owner).post(`/spaces/${space.id}/members`, { emails: ['outside@example.test'], role: 'admin' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ members: [], emailed: ['outside@example.test'] });
    expect(await t.sql(sql`select id from space_invitations where space_id = ${space.id}`)).toEqual([]);
    expect(await t.sql(sql`select id from email_outbox where organization_id = ${owner.organizationId}`)).toEqual([]);
  });
});
