import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, fingerprint, type TestUser } from '../../../test/app.js';
import { linkIn } from '../../../test/smtp.js';
import { useEmailTestApp } from '../../email/email.fixtures.js';
import { ACCEPTED, RESETS_PER_EMAIL_PER_HOUR } from './password-reset.routes.js';

const { t, smtp, send } = useEmailTestApp('reset');
const NEW_PASSWORD = 'a brand new passphrase';
const RESET_LINK = 'https://board.example.test/app/reset-password?token=';

const ask = (email: string, ip = '203.0.113.7') =>
  t.app.inject({ method: 'POST', url: '/auth/password-reset', payload: { email }, remoteAddress: ip });
const confirm = (token: string, password = NEW_PASSWORD) => t.as(null).post('/auth/password-reset/confirm', { token, password });
const login = (user: TestUser, password: string) => t.as(null).post('/auth/login', { email: user.email, password });

/** Asks for a link and answers the token the email carries. */
async function resetToken(user: TestUser): Promise<string> {
  const before = smtp.to(user.email).length;
  expect((await ask(user.email)).statusCode).toBe(202);
  await send();
  const mails = smtp.to(user.email);
  expect(mails.length).toBe(before + 1);
  return new URL(linkIn(mails.at(-1)!, RESET_LINK)).searchParams.get('token')!;
}

describe('POST /auth/password-reset and /confirm', () => {
  it('emails a single-use link that sets the password and signs out every session', async () => {
    const user = await t.org({ name: 'Ada <b>Lovelace</b>' });
    const res = await ask(user.email.toUpperCase());
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ message: ACCEPTED });
    await send();
    const [mail] = smtp.to(user.email);
    expect(mail!.subject).toBe('Reset your Workboard password');
    expect(mail!.from!.value).toEqual([{ name: 'Workboard', address: 'noreply@example.test' }]);
    // The Message-ID is the outbox row's, the same on every attempt.
    const [row] = await t.sql<{ message_id: string; status: string; text_body: string | null }>(
      sql`select message_id, status, text_body from email_outbox where user_id = ${user.id} and kind = 'password-reset'`,
    );
    expect(mail!.messageId).toBe(`<${row!.message_id}>`);
    // Sent: the body with its link is gone from the table; only the token's hash is kept.
    expect(row).toMatchObject({ status: 'sent', text_body: null });
    expect(mail!.text).toContain('Hello Ada <b>Lovelace</b>,');
    expect(mail!.html).toContain('Hello Ada &lt;b&gt;Lovelace&lt;/b&gt;,');
    expect(mail!.html).not.toContain('<b>Lovelace');
    const token = new URL(linkIn(mail!, RESET_LINK)).searchParams.get('token')!;
    expect(mail!.html).toContain(`href="${RESET_LINK}${token}"`);
    const stored = await t.sql<{ token_hash: string }>(sql`select token_hash from password_reset_tokens where user_id = ${user.id}`);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(token);

    const done = await confirm(token);
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ revokedSessions: 1 });
    expect((await t.as(user).get('/user')).statusCode).toBe(401);
    expectProblem(await login(user, PASSWORD), 401);
    expect((await login(user, NEW_PASSWORD)).statusCode).toBe(201);
    // A note of the change goes to the account.
    await send();
    expect(smtp.to(user.email).map((m) => m.subject)).toEqual(['Reset your Workboard password', 'Your Workboard password was changed']);
    // Neither the token nor the link is in any log line.
    expect(t.logs.filter((l) => l.includes(token) || l.includes('reset-password?'))).toEqual([]);
  });

  it('writes in the recipient’s language', async () => {
    const user = await t.org({ name: 'Анна' });
    expect((await t.as(user).patch('/user/language', { language: 'ru' })).statusCode).toBe(200);
    await resetToken(user);
    const mail = smtp.to(user.email).at(-1)!;
    expect(mail.subject).toBe('Сброс пароля Workboard');
    expect(mail.text).toContain('Здравствуйте, Анна!');
    expect(mail.html).toContain('Задать новый пароль');
  });

  it('answers 202 for an unknown address too, and sends nothing', async () => {
    const known = await t.org();
    const unknown = `nobody-${known.id}@example.test`;
    const a = await ask(unknown);
    const b = await ask(known.email);
    expect([a.statusCode, a.json()]).toEqual([202, { message: ACCEPTED }]);
    expect([b.statusCode, b.body]).toEqual([b.statusCode, a.body]);
    await send();
    expect(smtp.to(unknown)).toEqual([]);
    expect(await t.sql(sql`select id from email_outbox where lower(to_address) = ${unknown}`)).toEqual([]);
  });

  it('refuses a used token with 400, changing nothing', async () => {
    const user = await t.org();
    const token = await resetToken(user);
    expect((await confirm(token)).statusCode).toBe(200);
    const before = await fingerprint(t, [user.organizationId], [user.id]);
    expectProblem(await confirm(token, 'yet another passphrase'), 400, 'RESET_TOKEN_INVALID');
    expect(await fingerprint(t, [user.organizationId], [user.id])).toBe(before);
    expect((await login(user, NEW_PASSWORD)).statusCode).toBe(201);
  });

  it('refuses an expired token (the clock moved past 30 minutes)', async () => {
    const user = await t.org();
    const token = await resetToken(user);
    await t.sql(sql`update password_reset_tokens set expires_at = now() - interval '1 second', created_at = now() - interval '31 minutes' where user_id = ${user.id}`);
    expectProblem(await confirm(token), 400, 'RESET_TOKEN_INVALID');
    expect((await login(user, PASSWORD)).statusCode).toBe(201);
  });

  it('issues links that expire 30 minutes after they are asked for', async () => {
    const user = await t.org();
    await resetToken(user);
    const [row] = await t.sql<{ minutes: number }>(sql`select extract(epoch from expires_at - created_at) / 60 as minutes from password_reset_tokens where user_id = ${user.id}`);
    expect(Number(row!.minutes)).toBeCloseTo(30, 1);
  });

  it('refuses a token issued before a later password change', async () => {
    const user = await t.org();
    const token = await resetToken(user);
    const changed = await t.as(user).patch('/user/password', { currentPassword: PASSWORD, newPassword: 'changed by the owner' });
    expect(changed.statusCode).toBe(200);
    expectProblem(await confirm(token), 400, 'RESET_TOKEN_INVALID');
    expect((await login(user, 'changed by the owner')).statusCode).toBe(201);
  });

  it('refuses an unknown token, and a bad body, with 400', async () => {
    const user = await t.org();
    expectProblem(await confirm('not-a-token-we-issued'), 400, 'RESET_TOKEN_INVALID');
    const before = await fingerprint(t, [user.organizationId], [user.id]);
    for (const body of [{}, { token: 'x' }, { token: 'x', password: 'short' }, { token: '', password: NEW_PASSWORD }]) {
      expectProblem(await t.as(null).post('/auth/password-reset/confirm', body), 400, 'VALIDATION_FAILED');
    }
    for (const body of [{}, { email: 'not an address' }, { email: 42 }]) {
      expectProblem(await t.as(null).post('/auth/password-reset', body), 400, 'VALIDATION_FAILED');
    }
    expect(await fingerprint(t, [user.organizationId], [user.id])).toBe(before);
    expect(await t.sql(sql`select id from email_outbox where user_id = ${user.id} and kind <> 'verify-email'`)).toEqual([]);
  });

  it('limits the links one address is sent per hour (429 with Retry-After), from any client address', async () => {
    const user = await t.org();
    for (let i = 0; i < RESETS_PER_EMAIL_PER_HOUR; i++) expect((await ask(user.email, `198.51.100.${i + 1}`)).statusCode).toBe(202);
    const limited = await ask(user.email, '198.51.100.99');
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const [count] = await t.sql<{ n: number }>(sql`select count(*)::int as n from password_reset_tokens where user_id = ${user.id}`);
    expect(count!.n).toBe(RESETS_PER_EMAIL_PER_HOUR);
  });
});
