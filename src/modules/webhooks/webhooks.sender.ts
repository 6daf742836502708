import { logFailure } from '../../platform/errors.js';
import { setMaxListeners } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { webhookDeliveries, webhooks } from '../../db/schema/webhooks.js';
import { systemWrite, type SystemCtx } from '../../platform/context.js';
import { Drain } from '../../platform/jobs.js';
import { emit } from '../../platform/events.js';
import { postWebhook, type AttemptResult } from './webhooks.http.js';
import { presentWebhook, type DeliveryRow } from './webhooks.presenter.js';
import { messageId, signedHeaders } from './signing.js';
import { allowedHostsOf } from '../../platform/outbound.js';

/**
 * The durable queue's worker. Deliveries are claimed with FOR UPDATE SKIP LOCKED in one short
 * statement that also moves next_retry_at forward (a lease), sent outside any transaction, and
 * their result recorded in another: several instances never send one delivery at the same time,
 * and a delivery whose sender died is sent again once its lease runs out (at least once).
 */

interface Claimed {
  id: number;
  organizationId: number;
  webhookId: number;
  eventId: number;
  eventType: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

const CLAIMED = sql`d.id, d.organization_id as "organizationId", d.webhook_id as "webhookId", d.event_id as "eventId",
  d.event_type as "eventType", d.body, d.attempts, w.url, w.secret`;

export class WebhookSender {
  private readonly drainer = new Drain(
    () => this.round(),
    (err) => logFailure(this.app.log, err, {}, 'webhook sender failed'),
  );
  private readonly abort = new AbortController();

  constructor(private readonly app: FastifyInstance) {
    // Every delivery in flight listens to this one shutdown signal (each removes its listener when
    // done): more than Node's default of 10 at once is expected, not a leak.
    setMaxListeners(app.config.webhookConcurrency * 4 + 10, this.abort.signal);
  }

  private get config() {
    return this.app.config;
  }

  /** How long a claim keeps other senders away: the attempt's timeout and a margin to record it. */
  get leaseMs(): number {
    return this.config.webhookTimeoutMs + 30_000;
  }

  /** Sends what is due now; concurrent calls share one pass (and ask for another when one runs). */
  drain(): Promise<void> {
    return this.drainer.run();
  }

  async stop(): Promise<void> {
    const ended = this.drainer.stop();
    // In-flight attempts end now; their deliveries stay claimed and are sent again after the lease.
    this.abort.abort();
    await ended;
  }

  private async round(): Promise<number> {
    const batch = await this.claim(this.config.webhookConcurrency);
    await Promise.all(batch.map((c) => this.attemptAndRecord(c)));
    return batch.length;
  }

  private claim(limit: number): Promise<Claimed[]> {
    return queryRows<Claimed>(
      this.app.database.db,
      sql`with due as (
            select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
            where d.status = 'pending' and d.next_retry_at <= now() and (w.enabled or d.event_type = 'webhook.ping')
            order by d.next_retry_at, d.id
            limit ${limit}
            for update of d skip locked)
          update webhook_deliveries d set next_retry_at = now() + make_interval(secs => ${this.leaseMs / 1000})
          from due, webhooks w where d.id = due.id and w.id = d.webhook_id
          returning ${CLAIMED}`,
    );
  }

  /** The test route's ping: already leased by its transaction, sent by the request itself. */
  async deliverNow(organizationId: number, deliveryId: number): Promise<DeliveryRow | null> {
    const [claimed] = await queryRows<Claimed>(
      this.app.database.db,
      sql`select ${CLAIMED} from webhook_deliveries d join webhooks w on w.id = d.webhook_id
          where d.id = ${deliveryId} and d.organization_id = ${organizationId} and d.status = 'pending'`,
    );
    return claimed ? this.attemptAndRecord(claimed) : null;
  }

  private async attemptAndRecord(c: Claimed): Promise<DeliveryRow | null> {
    const at = new Date();
    const headers = signedHeaders(c.secret, messageId(c.organizationId, c.eventId), c.body, at);
    const result = await postWebhook(c.url, headers, c.body, {
      timeoutMs: this.config.webhookTimeoutMs,
      allowedHosts: allowedHostsOf(this.config),
      signal: this.abort.signal,
      log: this.app.log.child({ webhookId: c.webhookId, deliveryId: c.id }),
    });
    if (this.drainer.stopping) return null;
    this.app.metrics.webhookDuration.observe(result.durationMs / 1000);
    try {
      const delivery = await this.record(c, at, result);
      if (delivery) this.app.metrics.webhookAttempts.inc({ outcome: delivery.status === 'pending' ? 'retrying' : delivery.status });
      return delivery;
    } catch (err) {
      this.app.log.error({ err, deliveryId: c.id }, 'recording a webhook attempt failed');
      return null;
    }
  }

  /**
   * Records one attempt. A ping is tried once and leaves the webhook's health alone; any other
   * delivery is retried on the schedule, and one that spends every retry (about a day of failure)
   * disables its webhook, announced by webhook.disabled in the same transaction.
   */
  private record(c: Claimed, at: Date, r: AttemptResult): Promise<DeliveryRow | null> {
    const schedule = this.config.webhookRetrySchedule;
    const attempt = c.attempts + 1;
    const ping = c.eventType === 'webhook.ping';
    const exhausted = !r.ok && (ping || attempt > schedule.length);
    const status = r.ok ? 'succeeded' : exhausted ? 'failed' : 'pending';
    const retryInMs = status === 'pending' ? schedule[attempt - 1]! : null;
    const entry = { attempt, at: at.toISOString(), responseStatus: r.responseStatus, durationMs: r.durationMs, error: r.error };

    return systemWrite(this.app, c.organizationId, async (ctx) => {
      // The webhook's row before its delivery's, the order every writer of both keeps: two failing
      // deliveries of one webhook deadlocked when one, disabling the webhook, parked the other's
      // pending delivery while the other waited to count its failure on the webhook's row.
      if (!ping) await ctx.db.execute(sql`select id from webhooks where id = ${c.webhookId} for no key update`);
      // `attempts` guards against a sender whose lease ran out recording over a newer attempt.
      const [row] = await queryRows<Record<string, unknown>>(
        ctx.db,
        sql`update webhook_deliveries d set status = ${status}, attempts = ${attempt}, response_status = ${r.responseStatus},
              duration_ms = ${r.durationMs}, error = ${r.error}, attempt_log = d.attempt_log || ${JSON.stringify([entry])}::jsonb,
              next_retry_at = case when ${retryInMs}::int is null then null
                                   when (select enabled from webhooks where id = d.webhook_id) then now() + make_interval(secs => ${(retryInMs ?? 0) / 1000})
                                   else null end,
              updated_at = now()
            where d.id = ${c.id} and d.attempts = ${c.attempts} and d.status = 'pending'
            returning d.id`,
      );
      if (!row) return null;
      if (!ping) {
        await ctx.db.execute(
          sql`update webhooks set last_delivery_at = now(),
                failure_count = case when ${r.ok} then 0 else failure_count + 1 end
              where id = ${c.webhookId}`,
        );
        if (exhausted) await disableWebhook(ctx, c, attempt, r);
      }
      const [delivery] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, c.id));
      return delivery ?? null;
    });
  }
}

async function disableWebhook(ctx: SystemCtx, c: Claimed, attempts: number, r: AttemptResult): Promise<void> {
  const reason = `delivery ${c.id} (${c.eventType}) failed ${attempts} times; last error: ${r.error ?? 'unknown'}`.slice(0, 1000);
  // `enabled` in the condition: of several deliveries failing at once, only the first disables and announces.
  const [hook] = await ctx.db
    .update(webhooks)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(webhooks.id, c.webhookId), eq(webhooks.enabled, true)))
    .returning();
  if (!hook) return;
  // Its other deliveries wait, not due, until the webhook is enabled again.
  await ctx.db.execute(sql`update webhook_deliveries set next_retry_at = null where webhook_id = ${c.webhookId} and status = 'pending'`);
  const webhook = presentWebhook(hook);
  // Real-time goes to the creator alone (admin-only data); 0 = nobody when the creator is gone.
  emit(ctx.db, { type: 'webhook.disabled', spaceId: webhook.spaceId, projectId: webhook.projectId, userId: webhook.creatorId ?? 0, actorId: null, payload: webhook });
}
