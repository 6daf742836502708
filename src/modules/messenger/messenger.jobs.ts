import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { registerJob, wakeAfterCommit } from '../../platform/jobs.js';
import { MessengerBot } from './messenger.bot.js';
import { OutboxSender, queueMessages } from './messenger.outbox.js';
import { MessengerPoller } from './messenger.poller.js';

export const MESSENGER_SEND_JOB = 'messenger.send';
export const MESSENGER_PRUNE_JOB = 'messenger.prune';

export interface Messenger {
  bot: MessengerBot;
  sender: OutboxSender | null;
  poller: MessengerPoller | null;
}

/**
 * Wires the messenger into the app when TELEGRAM_BOT_TOKEN is set: the listener that queues
 * notifications and project events in their transaction, the sender (woken by those commits, and
 * polled for retries), the bot's poller (one instance at a time) and the pruning of sent messages.
 * Without a token nothing runs and every write skips the listener.
 */
export function startMessenger(app: FastifyInstance): Messenger {
  const bot = new MessengerBot(app);
  if (!bot.client) return { bot, sender: null, poller: null };
  const sender = new OutboxSender(app, bot.client);
  app.events.addListener(queueMessages(app.config.publicUrl, wakeAfterCommit(app, MESSENGER_SEND_JOB, () => sender.drain())));
  registerJob(app, { name: MESSENGER_SEND_JOB, intervalMs: app.config.messengerPollMs, exclusive: false, run: () => sender.drain() });
  registerJob(app, {
    name: MESSENGER_PRUNE_JOB,
    intervalMs: 60 * 60 * 1000,
    exclusive: true,
    async run(app) {
      // A reply can answer a notification for 90 days; what failed is kept as long, for the operator.
      await app.database.db.execute(sql`delete from messenger_outbox where status <> 'pending' and created_at < now() - interval '90 days'`);
    },
  });
  const poller = new MessengerPoller(app, bot, bot.client);
  if (app.config.jobsEnabled) app.addHook('onReady', async () => poller.start());
  app.addHook('preClose', async () => {
    await poller.stop();
    await sender.stop();
  });
  return { bot, sender, poller };
}
