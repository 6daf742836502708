import { afterAll, beforeAll } from 'vitest';
import { sql } from 'drizzle-orm';
import type { EmailConfig } from '../../config.js';
import { runJob } from '../../platform/jobs.js';
import { useTestApp, type TestKit } from '../../test/app.js';
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

export function useEmailTestApp(over: Partial<EmailConfig> = {}): EmailKit {
  const smtp = new TestSmtp();
  beforeAll(async () => void (await smtp.start()));
  afterAll(() => smtp.stop());
  const t = useTestApp(() => ({ email: emailConfig(smtp.url, over), publicUrl: 'https://board.example.test' }));
  return {
    t,
    smtp,
    send: async () => void (await runJob(t.app, EMAIL_JOB)),
    makeDue: async () => void (await t.sql(sql`update email_outbox set next_attempt_at = now() - interval '1 second' where status = 'pending'`)),
  };
}
