import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { withTransaction } from '../../db/tx.js';
import type { MessengerBot } from './messenger.bot.js';
import { handleUpdate } from './messenger.updates.js';
import type { TelegramClient, TelegramUpdate } from './telegram.client.js';

/**
 * The bot's long-polling loop. One instance polls at a time: it holds a lease on the single
 * messenger_poller row (renewed before each getUpdates, released on shutdown, taken over by another
 * instance once it lapses). An update is confirmed by moving the stored offset in the transaction
 * that handled it, so a crash before commit hands it to the next poll and one after never repeats it.
 */
export class MessengerPoller {
  private readonly owner = randomUUID();
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  private leading = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly bot: MessengerBot,
    private readonly client: TelegramClient,
  ) {}

  private get leaseSeconds(): number {
    return this.app.config.telegramPollTimeoutSec + 30;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      await this.app.database.db
        .execute(sql`update messenger_poller set owner = null, lease_until = null where bot = ${this.bot.key} and owner = ${this.owner}`)
        .catch(() => {});
    }
  }

  private async run(): Promise<void> {
    const db = this.app.database.db;
    let failures = 0;
    while (!this.abort.signal.aborted) {
      try {
        await db.execute(sql`insert into messenger_poller (bot) values (${this.bot.key}) on conflict do nothing`);
        const [lease] = await queryRows<{ offset: number }>(
          db,
          sql`update messenger_poller set owner = ${this.owner}, lease_until = now() + make_interval(secs => ${this.leaseSeconds})
              where bot = ${this.bot.key} and (owner is null or owner = ${this.owner} or lease_until < now())
              returning update_offset as offset`,
        );
        if (!lease) {
          this.leading = false;
          await this.sleep(Math.min(5000, this.app.config.telegramPollTimeoutSec * 1000 + 500));
          continue;
        }
        if (!this.leading) await this.lead(db);
        const updates = await this.client.getUpdates(Number(lease.offset), this.app.config.telegramPollTimeoutSec, this.abort.signal);
        for (const update of updates.sort((a, b) => a.update_id - b.update_id)) {
          if (this.abort.signal.aborted) break;
          await this.handle(update);
        }
        failures = 0;
      } catch (err) {
        if (this.abort.signal.aborted) break;
        failures++;
        this.app.log.warn({ error: (err as Error).message }, 'messenger: polling failed; retrying');
        await this.sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
      }
    }
  }

  /** Just took the lease: learn the bot's name (deep links) and set its commands. */
  private async lead(db: Queryable): Promise<void> {
    const me = await this.client.getMe();
    if (me.username) {
      await db.execute(sql`update messenger_poller set bot_username = ${me.username} where bot = ${this.bot.key}`);
      this.bot.learned(me.username);
    }
    await this.client.setMyCommands([
      { command: 'start', description: 'connect with the code from your profile or project' },
      { command: 'stop', description: 'stop notifications in this chat' },
      { command: 'help', description: 'what this bot does' },
    ]);
    this.leading = true;
    this.app.log.info({ bot: me.username }, 'messenger: this instance polls the bot');
  }

  private async handle(update: TelegramUpdate): Promise<void> {
    // Moves the offset in the handling transaction, only while the lease is still ours: an instance
    // that lost it rolls back rather than confirming what another may now be handling.
    const confirm = async (db: Queryable) => {
      const moved = await queryRows<{ bot: string }>(
        db,
        sql`update messenger_poller set update_offset = ${update.update_id + 1}
            where bot = ${this.bot.key} and owner = ${this.owner} and update_offset <= ${update.update_id} returning bot`,
      );
      if (moved.length === 0) throw new LostLease();
    };
    try {
      await handleUpdate(this.app, this.bot, update, confirm);
    } catch (err) {
      if (err instanceof LostLease) {
        this.leading = false;
        return;
      }
      // An update that cannot be handled is confirmed anyway (logged), rather than blocking the bot.
      this.app.log.error({ err, updateId: update.update_id }, 'messenger: an update could not be handled; skipped');
      await withTransaction(this.app.database.db, ({ tx }) => confirm(tx)).catch(() => {});
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.abort.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

class LostLease extends Error {}
