import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { PASSWORD, expectProblem } from '../../test/app.js';
import { linkIn } from '../../test/smtp.js';
import { useEmailTestApp } from './email.fixtures.js';
import { sendNotificationEmails } from './email.notifications.js';

const { t, smtp, send } = useEmailTestApp('verify', {}, { showVerifications: true });
const VERIFY_LINK = 'https://board.example.test/app/verify-email?token=';

async function signUp() {
  const email = `new-${randomUUID()}@example.test`;
  const res = await t.as(null).post('/auth/register', { email, password: PASSWORD, name: 'Nina New' });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  return { email, id: body.user.id as number, organizationId: body.organization.id as number, headers: { 'service-session': body.session as string }, user: body.user };
}

const verify = (token: string) => t.as(null).post('/auth/verify-email', { token });

describe('email verification', () => {
  it('a new address gets a link; until it is followed no notification email goes there', async () => {
    const person = await signUp();
    expect(person.user.emailVerified).toBe(false);
    await t.app.inject({ method: 'PUT', url: '/user/notification-email', headers: person.headers, payload: { mode: 'immediate', hour: 8, timeZone: 'UTC' } });
    await t.sql(sql`insert into notifications (organization_id, user_id, type, text, dedup_key) values (${person.organizationId}, ${person.id}, 'mention', 'hello', 'v1')`);
    await sendNotificationEmails(t.app, new Date());
    await send();
    const mails = smtp.to(person.email);
    expect(mails.map((m) => m.subject)).toEqual(['Confirm your email address for Workboard']);
    const token = new URL(linkIn(mails[0]!, VERIFY_LINK)).searchParams.get('token')!;

    const res = await verify(token);
    expect(res.statusCode).toBe(204);
    const me = await t.app.inject({ method: 'GET', url: '/user', headers: person.headers });
    expect(me.json().emailVerified).toBe(true);
    await sendNotificationEmails(t.app, new Date());
    await send();
    expect(smtp.to(person.email).map((m) => m.subject)).toEqual(['Confirm your email address for Workboard', 'hello']);
    // Used once.
    expectProblem(await verify(token), 400, 'VERIFICATION_TOKEN_INVALID');
    expect(t.logs.filter((l) => l.includes(token) || l.includes('verify-email?'))).toEqual([]);
  });

  it('refuses an unknown or expired token and a bad body with 400, changing nothing', async () => {
    const person = await signUp();
    await send();
    const token = new URL(linkIn(smtp.to(person.email)[0]!, VERIFY_LINK)).searchParams.get('token')!;
    await t.sql(sql`update email_verifications set expires_at = now() - interval '1 second' where user_id = ${person.id}`);
    expectProblem(await verify(token), 400, 'VERIFICATION_TOKEN_INVALID');
    expectProblem(await verify('no-such-token'), 400, 'VERIFICATION_TOKEN_INVALID');
    expectProblem(await t.as(null).post('/auth/verify-email', {}), 400, 'VALIDATION_FAILED');
    const [row] = await t.sql<{ email_verified_at: Date | null }>(sql`select email_verified_at from users where id = ${person.id}`);
    expect(row!.email_verified_at).toBeNull();
  });
});
