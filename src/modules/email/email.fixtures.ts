import { afterAll, beforeAll } from 'vitest';
import { sql } from 'drizzle-orm';
import pg from 'pg';
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

/**
 * On PostgreSQL, an empty database of this file's own beside the suite's (migrated by the app); on
 * PGlite, an in-memory database of its own (files of one worker may otherwise share one).
 */
function ownDatabase(name: string): () => { databaseUrl?: string; skipMigrations?: boolean; dataDir?: string } {
  const url = process.env.DATABASE_URL;
  let own: string | null = null;
  if (url) {
    beforeAll(async () => {
      const target = new URL(url);
      target.pathname = `${target.pathname}_email_${name}`;
      own = target.toString();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create database ${target.pathname.slice(1)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err;
      });
      await admin.end();
      const client = new pg.Client({ connectionString: own });
      await client.connect();
      await client.query('drop schema if exists public cascade; drop schema if exists drizzle cascade; create schema public;');
      await client.end();
    });
  }
  return () => (own ? { databaseUrl: own, skipMigrations: false } : { dataDir: `memory://email-${name}` });
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
  const own = ownDatabase(name);
  const t = useTestApp(() => ({ email: emailConfig(smtp.url, over), publicUrl: 'https://board.example.test', ...own() }));
  return {
    t,
    smtp,
    send: async () => void (await runJob(t.app, EMAIL_JOB)),
    makeDue: async () => void (await t.sql(sql`update email_outbox set next_attempt_at = now() - interval '1 second' where status = 'pending'`)),
  };
}
