import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../app.js';
import { runJob } from '../../platform/jobs.js';
import { DurableQueue } from '../../platform/queue.js';
import { useEmailTestApp } from './email.fixtures.js';
import { EMAIL_JOB, queueEmail } from './email.outbox.js';
import { templates } from './email.templates.js';

const { t, smtp, send, makeDue } = useEmailTestApp('outbox');

interface Row {
  id: number;
  message_id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  text_body: string | null;
}

let batch = 0;
/** Queues `n` messages (as a use case would, in one transaction) and answers their addresses. */
async function queue(n: number): Promise<string[]> {
  batch++;
  const to = Array.from({ length: n }, (_, i) => `r${batch}-${i}-${Date.now()}@example.test`);
  const message = templates.passwordChanged('en', { name: 'Test' }, t.app.config.publicUrl);
  await t.app.database.db.transaction((tx) => queueEmail(t.app, tx, to.map((address) => ({ to: address, kind: 'test', message }))));
  return to;
}

const rowsOf = (to: string[]) =>
  t.sql<Row>(sql`select id, message_id, status, attempts, last_error, text_body from email_outbox where to_address = any(${`{${to.join(',')}}`}::text[]) order by id`);
const arrived = (to: string[]) => to.map((address) => smtp.to(address).length);

describe('the email outbox', () => {
  it('retries a 421 after the schedule’s wait, then the message arrives once', async () => {
    const to = await queue(1);
    smtp.refuseNext(421);
    await send();
    expect(arrived(to)).toEqual([0]);
    const [waiting] = await rowsOf(to);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringMatching(/^SMTP 421: /) });
    // Not due yet: the wait is an hour.
    await send();
    expect(arrived(to)).toEqual([0]);
    await makeDue();
    await send();
    expect(arrived(to)).toEqual([1]);
    const [sent] = await rowsOf(to);
    expect(sent).toMatchObject({ status: 'sent', attempts: 2, last_error: null, text_body: null });
    expect(smtp.to(to[0]!)[0]!.messageId).toBe(`<${sent!.message_id}>`);
  });

  it('marks a 550 failed with the server’s reason, and never sends it again', async () => {
    const to = await queue(1);
    smtp.refuseNext(550);
    await send();
    const [failed] = await rowsOf(to);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^SMTP 550: .*mailbox unavailable/), text_body: null });
    await makeDue();
    await send();
    expect(arrived(to)).toEqual([0]);
  });

  it('gives up on a temporary failure once the schedule is spent', async () => {
    const to = await queue(1);
    smtp.refuseNext(421, 421, 421, 421);
    for (let i = 0; i < 4; i++) {
      await send();
      await makeDue();
    }
    const [row] = await rowsOf(to);
    expect(row).toMatchObject({ status: 'failed', attempts: 4, last_error: expect.stringMatching(/^SMTP 421/) });
    await send();
    expect(arrived(to)).toEqual([0]);
  });

  it('delivers every message exactly once when the server was stopped and started again', async () => {
    await smtp.stop();
    const to = await queue(5);
    await send();
    const refused = await rowsOf(to);
    expect(refused.every((r) => r.status === 'pending' && r.attempts === 1 && /ECONNREFUSED|ECONNECTION/.test(r.last_error ?? ''))).toBe(true);
    await smtp.start();
    await makeDue();
    await send();
    await makeDue();
    await send();
    expect(arrived(to)).toEqual([1, 1, 1, 1, 1]);
    expect((await rowsOf(to)).map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  });

  it('takes again a message whose sender died holding it, once its lease ran out; the dead claim cannot settle it', async () => {
    const to = await queue(1);
    const crashed = new DurableQueue({ table: 'email_outbox' }, { leaseMs: 3600_000, retrySchedule: [] });
    const [claim] = await crashed.claim(t.app.database.db, 1, sql`to_address = ${to[0]!}`);
    expect(claim).toMatchObject({ attempt: 1 });
    await send();
    expect(arrived(to)).toEqual([0]);
    // The lease runs out.
    await makeDue();
    await send();
    expect(arrived(to)).toEqual([1]);
    expect(await crashed.succeed(t.app.database.db, claim!)).toBe('stale');
    expect(await crashed.fail(t.app.database.db, claim!, 'late', false)).toBe('stale');
    expect((await rowsOf(to))[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });

  describe('two instances on one database', () => {
    let second: FastifyInstance;
    beforeAll(async () => {
      second = await buildApp(t.config, { database: t.database, logStream: new PassThrough() });
    });
    afterAll(() => second?.close());

    it('send each message once', async () => {
      const to = await queue(24);
      await Promise.all([runJob(t.app, EMAIL_JOB), runJob(second, EMAIL_JOB), runJob(t.app, EMAIL_JOB), runJob(second, EMAIL_JOB)]);
      expect(arrived(to)).toEqual(to.map(() => 1));
      const rows = await rowsOf(to);
      expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
      // No Message-ID arrived twice.
      const ids = smtp.received.map((m) => m.messageId);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});
