import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { inArray, sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Queryable } from '../../db/client.js';
import { emailOutbox } from '../../db/schema/email.js';
import { AppError, logFailure } from '../../platform/errors.js';
import { Drain, registerJob, wakeJob } from '../../platform/jobs.js';
import { DurableQueue, type Claim } from '../../platform/queue.js';
import type { Rendered } from './email.layout.js';
import type { Mailer } from '../auth/auth.hooks.js';
import { smtpTransport, type MailTransport } from './email.transport.js';

export const EMAIL_JOB = 'email.send';

/** The 409 of a route that needs email while SMTP_URL is unset. */
export function requireEmail(config: Config): void {
  if (!config.email.smtpUrl) throw new AppError('EMAIL_NOT_CONFIGURED', 'this service sends no email: its operator has not set SMTP_URL');
}

export interface OutgoingEmail {
  to: string;
  kind: string;
  message: Rendered;
  userId?: number | null;
  organizationId?: number | null;
  headers?: Record<string, string>;
}

/**
 * Queues messages in the caller's transaction: a change that rolls back sends nothing, one that
 * commits cannot lose its mail. The caller wakes the sender once it has committed (wakeEmail, or
 * `ctx.afterCommit(() => wakeEmail(app))`); it never sends in the request. Without SMTP_URL
 * nothing is queued. Answers the Message-IDs.
 */
export async function queueEmail(app: Mailer, db: Queryable, emails: OutgoingEmail[]): Promise<string[]> {
  if (!app.config.email.smtpUrl || emails.length === 0) return [];
  const host = new URL(app.config.publicUrl).hostname;
  const rows = emails.map((e) => ({
    messageId: `${randomUUID()}@${host}`,
    organizationId: e.organizationId ?? null,
    userId: e.userId ?? null,
    kind: e.kind,
    toAddress: e.to,
    subject: e.message.subject,
    textBody: e.message.text,
    htmlBody: e.message.html,
    headers: e.headers ?? {},
  }));
  await db.insert(emailOutbox).values(rows);
  return rows.map((r) => r.messageId);
}

/** Runs the sender now, in the background (with jobs on in this process; else the next poll anywhere does). */
export function wakeEmail(app: FastifyInstance): void {
  if (app.config.email.smtpUrl) wakeJob(app, EMAIL_JOB)();
}

/**
 * The outbox's worker: claims due messages (platform/queue.ts: SKIP LOCKED, a lease, the attempt
 * counted), sends each outside any transaction, and settles it: sent (the bodies cleared), retried
 * after the schedule's wait (4xx, no connection), or failed with the server's reason (5xx).
 */
export class EmailSender {
  private readonly queue: DurableQueue;
  private readonly drainer: Drain;

  constructor(
    private readonly app: FastifyInstance,
    private readonly transport: MailTransport,
  ) {
    const { timeoutMs, retrySchedule } = app.config.email;
    // A claim outlasts one whole conversation (connect, greeting, data) and the time to record it.
    this.queue = new DurableQueue({ table: 'email_outbox' }, { leaseMs: timeoutMs * 3 + 30_000, retrySchedule });
    this.drainer = new Drain(
      () => this.round(),
      (err) => logFailure(app.log, err, {}, 'email sender failed'),
    );
  }

  drain(): Promise<void> {
    return this.drainer.run();
  }

  async stop(): Promise<void> {
    await this.drainer.stop();
    this.transport.close();
  }

  private async round(): Promise<number> {
    const db = this.app.database.db;
    const claims = await this.queue.claim(db, this.app.config.email.concurrency);
    if (claims.length === 0) return 0;
    // The claimed messages in one read, not one per message.
    const rows = new Map((await db.select().from(emailOutbox).where(inArray(emailOutbox.id, claims.map((c) => c.id)))).map((r) => [r.id, r]));
    await Promise.all(claims.map((c) => rows.has(c.id) && this.sendOne(c, rows.get(c.id)!)));
    return claims.length;
  }

  private async sendOne(claim: Claim, row: typeof emailOutbox.$inferSelect): Promise<void> {
    const db = this.app.database.db;
    const result = await this.transport.send({
      messageId: row.messageId,
      to: row.toAddress,
      subject: row.subject,
      text: row.textBody ?? '',
      html: row.htmlBody ?? '',
      headers: row.headers,
    });
    const clear = sql`, text_body = null, html_body = null`;
    // The log names the message and its kind, never the address's link or body.
    const log = this.app.log.child({ emailId: claim.id, kind: row.kind, attempt: claim.attempt });
    if (result.ok) {
      await this.queue.succeed(db, claim, sql`${clear}, sent_at = now()`);
      log.info('email sent');
      return;
    }
    const outcome = await this.queue.fail(db, claim, result.reason, result.temporary, clear);
    log.warn({ reason: result.reason, outcome }, 'email not sent');
  }
}

/** Wires the outbox's sender into the app: a polled job (commits wake it at once), stopped with the app. */
export function startEmail(app: FastifyInstance, transport?: MailTransport): EmailSender | null {
  const { email } = app.config;
  if (!email.smtpUrl) return null;
  const sender = new EmailSender(app, transport ?? smtpTransport({ ...email, smtpUrl: email.smtpUrl }));
  registerJob(app, { name: EMAIL_JOB, intervalMs: email.pollMs, exclusive: false, run: () => sender.drain() });
  app.addHook('onClose', async () => sender.stop());
  return sender;
}
