import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, fingerprint } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { linkIn } from '../../test/smtp.js';
import { useEmailTestApp } from '../email/email.fixtures.js';

const { t, smtp, send } = useEmailTestApp('email_change', {}, { showVerifications: true });
const VERIFY_LINK = 'https://board.example.test/app/verify-email?token=';
const address = () => `moved-${randomUUID()}@example.test`;
const change = (user: Parameters<typeof t.as>[0], body: unknown) => t.as(user).patch('/user/email', body);

describe('PATCH /user/email', () => {
  it('moves the account to an unverified new address with a verification link, and tells the old one', async () => {
    const user = await t.org({ name: 'Ada' });
    await send();
    const next = address();
    const res = await change(user, { email: next.toUpperCase(), password: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, email: next, emailVerified: false });
    await send();
    expect(smtp.to(user.email).map((m) => m.subject)).toEqual(['Confirm your email address for Workboard', 'The email address of your Workboard account was changed']);
    expect(smtp.to(user.email).at(-1)!.text).toContain(`from this one to ${next}`);
    const [mail] = smtp.to(next);
    expect(mail!.subject).toBe('Confirm your email address for Workboard');
    const token = new URL(linkIn(mail!, VERIFY_LINK)).searchParams.get('token')!;
    expect((await t.as(null).post('/auth/verify-email', { token })).statusCode).toBe(204);
    expect((await t.as(user).get('/user')).json()).toMatchObject({ email: next, emailVerified: true });
    // Signing in takes the new address, not the old one.
    expect((await t.as(null).post('/auth/login', { email: next, password: PASSWORD })).statusCode).toBe(201);
    expectProblem(await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD }), 401);
    expect(t.logs.filter((l) => l.includes(token))).toEqual([]);
  });

  it('kills the unused password-reset links that went to the old address', async () => {
    const user = await t.org();
    expect((await t.as(null).post('/auth/password-reset', { email: user.email })).statusCode).toBe(202);
    expect((await change(user, { email: address(), password: PASSWORD })).statusCode).toBe(200);
    expect(await t.sql(sql`select id from password_reset_tokens where user_id = ${user.id} and used_at is null`)).toEqual([]);
  });

  it('answers 409 EMAIL_TAKEN for another account’s address and 400 WRONG_PASSWORD, changing nothing', async () => {
    const user = await t.org();
    const other = await t.org();
    const before = await fingerprint(t, [user.organizationId], [user.id, other.id]);
    expectProblem(await change(user, { email: other.email.toUpperCase(), password: PASSWORD }), 409, 'EMAIL_TAKEN');
    expectProblem(await change(user, { email: address(), password: 'not the password' }), 400, 'WRONG_PASSWORD');
    expect(await fingerprint(t, [user.organizationId], [user.id, other.id])).toBe(before);
  });

  it('keeps the same address (any case) as it is, verified and without mail', async () => {
    const user = await t.org();
    await t.sql(sql`update users set email_verified_at = now() where id = ${user.id}`);
    const res = await change(user, { email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.json()).toMatchObject({ email: user.email, emailVerified: true });
    expect(await t.sql(sql`select id from email_outbox where user_id = ${user.id} and kind = 'email-changed'`)).toEqual([]);
  });

  commonCases(t, 'PATCH /user/email', {
    method: 'PATCH',
    setup: async (kit) => ({ url: '/user/email', owner: await kit.org(), body: { email: address(), password: PASSWORD }, badBody: { email: 'not an address', password: PASSWORD } }),
  });
});
