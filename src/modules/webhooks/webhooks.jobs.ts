import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { registerJob, wakeAfterCommit } from '../../platform/jobs.js';
import { queueDeliveries } from './webhooks.queue.js';
import { WebhookSender } from './webhooks.sender.js';

export const WEBHOOK_SENDER_JOB = 'webhooks.send';
export const WEBHOOK_PRUNE_JOB = 'webhooks.prune';

/**
 * Wires the webhook pipeline into the app: the transactional listener that queues deliveries, the
 * sender woken by the commits that queued some and polled for due retries, and the pruning of old
 * delivery logs. The sender stops with the app.
 */
export function startWebhookDelivery(app: FastifyInstance): WebhookSender {
  const sender = new WebhookSender(app);
  // Only commits that queued deliveries wake the sender, so writes of organizations without
  // webhooks cost no claim query.
  app.events.addListener(queueDeliveries(sender.leaseMs, wakeAfterCommit(app, WEBHOOK_SENDER_JOB, () => sender.drain())));
  registerJob(app, { name: WEBHOOK_SENDER_JOB, intervalMs: app.config.webhookPollMs, exclusive: false, run: () => sender.drain() });
  app.addHook('onClose', async () => sender.stop());

  registerJob(app, {
    name: WEBHOOK_PRUNE_JOB,
    intervalMs: 60 * 60 * 1000,
    exclusive: true,
    async run(app) {
      // The delivery log is shown for 30 days and kept as long as the change log it copies.
      const days = Math.max(30, app.config.eventsRetentionDays);
      for (let i = 0; i < 100; i++) {
        // The batch is read once into an array (an `in (subquery … limit)` may be planned to run it again per row).
        const result = (await app.database.db.execute(sql`
          delete from webhook_deliveries where id = any(array(
            select id from webhook_deliveries where created_at < now() - make_interval(days => ${days}) limit 5000))`)) as unknown as {
          rowCount?: number;
          affectedRows?: number;
        };
        if ((result.rowCount ?? result.affectedRows ?? 0) < 5000) break;
      }
    },
  });
  return sender;
}
