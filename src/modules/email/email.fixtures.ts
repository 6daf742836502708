import { afterAll, beforeAll } from 'vitest';
import { sql } from 'drizzle-orm';
import type { EmailConfig } from '../../config.js';
import { runJob } from '../../platform/jobs.js';
import { ownDatabase, useTestApp, type TestKit } from '../../test/app.js';
import { TestSmtp } from '../../test/smtp.js';
import { EMAIL_JOB } from './email.outbox.js';

// Test-only: an app whose email goes to a real SMTP server on 127.0.0.1, and the calls that drive it.

export function emailConfig(url: string, over: Partial<EmailConfig> = {}): EmailConfig {
  return {
    smtpUrl: url,
    from: 'Workboard <noreply@example.test>',
    dkim: null,
    timeoutMs: 3000,
    // Long waits: a test moves the clock (makeDue) instead of sleeping through them.
    retrySchedule: [3600_000, 3600_000, 3600_000],
    pollMs: 1000,
    concurrency: 4,
    ...over,
  };
}

export interface EmailKit {
  t: TestKit;
  smtp: TestSmtp;
  /** Runs the sender until nothing is due. */
  send(): Promise<void>;
  /** Moves the outbox's clock: every pending message waiting for a retry is due now. */
  makeDue(): Promise<void>;
}

/**
 * `name` names the file's own database on PostgreSQL: the outbox is one queue per database, and a
 * sender of another test file running beside this one would take (and send elsewhere) its messages.
 */
export function useEmailTestApp(name: string, over: Partial<EmailConfig> = {}, options: { showVerifications?: boolean } = {}): EmailKit {
  const smtp = new TestSmtp();
  // Every test user's sign-up is emailed a verification link; only its own test looks at those.
  if (!options.showVerifications) smtp.hidden = (mail) => /^(Confirm your email address|Подтвердите адрес)/.test(mail.subject ?? '');
  beforeAll(async () => void (await smtp.start()));
  afterAll(() => smtp.stop());
  const own = ownDatabase(`email_${name}`);
  const t = useTestApp(() => ({ email: emailConfig(smtp.url, over), publicUrl: 'https://board.example.test', ...own() }));
  return {
    t,
    smtp,
    send: async () => void (await runJob(t.app, EMAIL_JOB)),
    makeDue: async () => void (await t.sql(sql`update email_outbox set next_attempt_at = now() - interval '1 second' where status = 'pending'`)),
  };
}
