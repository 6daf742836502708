import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';

// Without SMTP_URL email is off: the routes that need it say so, and nothing else is affected.
const t = useTestApp();

describe('email without SMTP_URL', () => {
  it('answers 409 EMAIL_NOT_CONFIGURED to a password reset, queuing nothing', async () => {
    const user = await t.org();
    expect(t.app.config.email.smtpUrl).toBeNull();
    const res = await t.as(null).post('/auth/password-reset', { email: user.email });
    expect(expectProblem(res, 409, 'EMAIL_NOT_CONFIGURED').detail).toMatch(/SMTP_URL/);
    expect(await t.sql(sql`select id from password_reset_tokens where user_id = ${user.id}`)).toEqual([]);
    expect(await t.sql(sql`select id from email_outbox where user_id = ${user.id}`)).toEqual([]);
  });

  it('keeps /ready ready', async () => {
    const res = await t.as(null).get('/ready');
    expect(res.statusCode).toBe(200);
  });
});
