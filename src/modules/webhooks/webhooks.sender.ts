import { logFailure } from '../../platform/errors.js';
import { setMaxListeners } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { and, eq, sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import { webhookDeliveries, webhooks } from '../../db/schema/webhooks.js';
import { systemWrite, type SystemCtx } from '../../platform/context.js';
import { Drain } from '../../platform/jobs.js';
import { DurableQueue, type Claim, type Settled } from '../../platform/queue.js';
import { emit } from '../../platform/events.js';
import { postWebhook, type AttemptResult } from './webhooks.http.js';
import { presentWebhook, type DeliveryRow } from './webhooks.presenter.js';
import { messageId, signedHeaders } from './signing.js';
import { allowedHostsOf } from '../../platform/outbound.js';

/**
 * The durable queue's worker (platform/queue.ts: claimed with SKIP LOCKED and a lease, sent outside
 * any transaction, the result recorded in another): several instances never send one delivery at
 * the same time, and a delivery whose sender died is sent again once its lease runs out (at least
 * once). An attempt counts once its result is recorded: one cut short by a shutdown never happened.
 */

interface Claimed {
  organizationId: number;
  webhookId: number;
  eventId: number;
  eventType: string;
  body: string;
  url: string;
  secret: string;
}

type Delivery = Claimed & { claim: Claim };

const OUTCOME: Record<Settled, string | null> = { done: 'succeeded', retrying: 'retrying', failed: 'failed', stale: null };

export class WebhookSender {
  private readonly drainer = new Drain(
    () => this.round(),
    (err) => logFailure(this.app.log, err, {}, 'webhook sender failed'),
  );
  private readonly abort = new AbortController();
  private readonly queue: DurableQueue;

  constructor(private readonly app: FastifyInstance) {
    // Every delivery in flight listens to this one shutdown signal (each removes its listener when
    // done): more than Node's default of 10 at once is expected, not a leak.
    setMaxListeners(app.config.webhookConcurrency * 4 + 10, this.abort.signal);
    this.queue = new DurableQueue(
      { table: 'webhook_deliveries', due: 'next_retry_at', error: 'error', done: 'succeeded', countAt: 'settle' },
      { leaseMs: this.leaseMs, retrySchedule: app.config.webhookRetrySchedule },
    );
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
    // A disabled webhook's deliveries wait for it to be enabled again; its ping is sent all the same.
    // (`in`, not a correlated `exists`: under the `or`, that one was planned twice as slow as the old join.)
    const enabled = sql`(event_type = 'webhook.ping' or webhook_id in (select id from webhooks where enabled))`;
    const batch = await this.load(await this.queue.claim(this.app.database.db, this.config.webhookConcurrency, enabled));
    await Promise.all(batch.map((d) => this.attemptAndRecord(d)));
    return batch.length;
  }

  /** The claimed deliveries with their webhooks' address and secret, in one read. */
  private async load(claims: Claim[]): Promise<Delivery[]> {
    if (claims.length === 0) return [];
    const rows = await queryRows<Claimed & { id: number }>(
      this.app.database.db,
      sql`select d.id, d.organization_id as "organizationId", d.webhook_id as "webhookId", d.event_id as "eventId",
            d.event_type as "eventType", d.body, w.url, w.secret
          from webhook_deliveries d join webhooks w on w.id = d.webhook_id where d.id = any(${idArray(claims.map((c) => c.id))})`,
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return claims.flatMap((claim) => {
      const row = byId.get(claim.id);
      return row ? [{ ...row, organizationId: Number(row.organizationId), webhookId: Number(row.webhookId), eventId: Number(row.eventId), claim }] : [];
    });
  }

  /** The test route's ping: leased by its transaction, away from the background sender, and sent by the request itself. */
  async deliverNow(organizationId: number, deliveryId: number): Promise<DeliveryRow | null> {
    const claims = await this.queue.claim(this.app.database.db, 1, sql`id = ${deliveryId} and organization_id = ${organizationId}`, { anyTime: true });
    const [delivery] = await this.load(claims);
    return delivery ? this.attemptAndRecord(delivery) : null;
  }

  private async attemptAndRecord(d: Delivery): Promise<DeliveryRow | null> {
    const at = new Date();
    const headers = signedHeaders(d.secret, messageId(d.organizationId, d.eventId), d.body, at);
    const result = await postWebhook(d.url, headers, d.body, {
      timeoutMs: this.config.webhookTimeoutMs,
      allowedHosts: allowedHostsOf(this.config),
      signal: this.abort.signal,
      log: this.app.log.child({ webhookId: d.webhookId, deliveryId: d.claim.id }),
    });
    if (this.drainer.stopping) return null;
    this.app.metrics.webhookDuration.observe(result.durationMs / 1000);
    try {
      const recorded = await this.record(d, at, result);
      const outcome = recorded && OUTCOME[recorded.settled];
      if (outcome) this.app.metrics.webhookAttempts.inc({ outcome });
      return recorded?.delivery ?? null;
    } catch (err) {
      this.app.log.error({ err, deliveryId: d.claim.id }, 'recording a webhook attempt failed');
      return null;
    }
  }

  /**
   * Records one attempt. A ping is tried once and leaves the webhook's health alone; any other
   * delivery is retried on the schedule, and one that spends every retry (about a day of failure)
   * disables its webhook, announced by webhook.disabled in the same transaction.
   */
  private record(d: Delivery, at: Date, r: AttemptResult): Promise<{ settled: Settled; delivery: DeliveryRow | null } | null> {
    const ping = d.eventType === 'webhook.ping';
    const entry = { attempt: d.claim.attempt, at: at.toISOString(), responseStatus: r.responseStatus, durationMs: r.durationMs, error: r.error };
    const logged = sql`, response_status = ${r.responseStatus}, duration_ms = ${r.durationMs}, attempt_log = attempt_log || ${JSON.stringify([entry])}::jsonb`;

    return systemWrite(this.app, d.organizationId, async (ctx) => {
      // The webhook's row before its delivery's, the order every writer of both keeps: two failing
      // deliveries of one webhook deadlocked when one, disabling the webhook, parked the other's
      // pending delivery while the other waited to count its failure on the webhook's row.
      const [hook] = ping ? [] : await queryRows<{ enabled: boolean }>(ctx.db, sql`select enabled from webhooks where id = ${d.webhookId} for no key update`);
      const settled = r.ok
        ? await this.queue.succeed(ctx.db, d.claim, { each: logged })
        : await this.queue.fail(ctx.db, d.claim, r.error, !ping, { each: logged });
      if (settled === 'stale') return null;
      if (!ping) {
        await ctx.db.execute(
          sql`update webhooks set last_delivery_at = now(),
                failure_count = case when ${r.ok} then 0 else failure_count + 1 end
              where id = ${d.webhookId}`,
        );
        // Disabled meanwhile (by another of its deliveries): this one waits with the rest.
        if (settled === 'retrying' && hook && !hook.enabled) await parkDeliveries(ctx, d.webhookId);
        if (settled === 'failed') await disableWebhook(ctx, d, r);
      }
      const [delivery] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.claim.id));
      return { settled, delivery: delivery ?? null };
    });
  }
}

/** A disabled webhook's pending deliveries wait, not due, until it is enabled again. */
async function parkDeliveries(ctx: SystemCtx, webhookId: number): Promise<void> {
  await ctx.db.execute(sql`update webhook_deliveries set next_retry_at = null where webhook_id = ${webhookId} and status = 'pending'`);
}

async function disableWebhook(ctx: SystemCtx, d: Delivery, r: AttemptResult): Promise<void> {
  const reason = `delivery ${d.claim.id} (${d.eventType}) failed ${d.claim.attempt} times; last error: ${r.error ?? 'unknown'}`.slice(0, 1000);
  // `enabled` in the condition: of several deliveries failing at once, only the first disables and announces.
  const [hook] = await ctx.db
    .update(webhooks)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(webhooks.id, d.webhookId), eq(webhooks.enabled, true)))
    .returning();
  if (!hook) return;
  await parkDeliveries(ctx, d.webhookId);
  const webhook = presentWebhook(hook);
  // Real-time goes to the creator alone (admin-only data); 0 = nobody when the creator is gone.
  emit(ctx.db, { type: 'webhook.disabled', spaceId: webhook.spaceId, projectId: webhook.projectId, userId: webhook.creatorId ?? 0, actorId: null, payload: webhook });
}
