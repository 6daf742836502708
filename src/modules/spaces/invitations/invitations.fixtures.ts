import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import type { TestUser } from '../../../test/app.js';
import { factories } from '../../../test/factories.js';
import { linkIn } from '../../../test/smtp.js';
import type { EmailKit } from '../../email/email.fixtures.js';

// Test-only: an admin with a space, invitations sent to a real SMTP server, and their links read back.

export const INVITE_LINK = 'https://board.example.test/app/invitations/';

export function invitationKit(kit: EmailKit) {
  const { t, smtp, send } = kit;
  const f = factories(t);
  return {
    f,
    async space(name = 'Design') {
      const owner = await t.org({ name: 'Olga Owner' });
      const space = await f.space(owner, name);
      return { owner, space };
    },
    /** Invites the address as `admin` and answers the invitation and the token its email carries. */
    async invite(admin: TestUser, spaceId: number, email: string, role = 'member') {
      const res = await t.as(admin).post(`/spaces/${spaceId}/invitations`, { email, role });
      expect(res.statusCode, res.body).toBe(201);
      return { invitation: res.json() as { id: number; email: string; state: string }, token: await this.tokenFor(email) };
    },
    /** The token of the newest invitation email to this address. */
    async tokenFor(email: string): Promise<string> {
      await send();
      const mail = smtp.to(email).at(-1);
      if (!mail) throw new Error(`no email to ${email}`);
      return linkIn(mail, INVITE_LINK).slice(INVITE_LINK.length);
    },
    /** Moves the invitation's clock past its expiry (the database's now() decides the state). */
    async expire(invitationId: number) {
      await t.sql(sql`update space_invitations set expires_at = now() - interval '1 second', sent_at = now() - interval '8 days' where id = ${invitationId}`);
    },
  };
}
