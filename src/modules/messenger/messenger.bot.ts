import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { TelegramClient } from './telegram.client.js';

/**
 * The bot as this instance knows it: the Bot API client and the bot's username (for deep links),
 * learned from the poller's row or from getMe, once.
 */
export class MessengerBot {
  readonly client: TelegramClient | null;
  /** The bot's row in messenger_poller: a digest of its token (never the token itself). */
  readonly key: string;
  private username: Promise<string> | null = null;

  constructor(private readonly app: FastifyInstance) {
    const token = app.config.telegramBotToken;
    this.client = token ? new TelegramClient({ ...app.config, telegramBotToken: token }, app.log) : null;
    this.key = token ? sha256(token).slice(0, 24) : '';
  }

  /** The client, or 409 MESSENGER_NOT_CONFIGURED when the service has no bot token. */
  requireClient(): TelegramClient {
    if (!this.client) throw new AppError('MESSENGER_NOT_CONFIGURED', 'the messenger integration is off: the service has no TELEGRAM_BOT_TOKEN');
    return this.client;
  }

  /** `db`: the caller's transaction, if it is in one (PGlite has a single connection). */
  botUsername(db: Queryable = this.app.database.db): Promise<string> {
    const client = this.requireClient();
    this.username ??= (async () => {
      const [row] = await queryRows<{ name: string | null }>(db, sql`select bot_username as name from messenger_poller where bot = ${this.key}`);
      if (row?.name) return row.name;
      const me = await client.getMe();
      if (!me.username) throw new Error('getMe answered no username');
      return me.username;
    })().catch((err: unknown) => {
      this.username = null;
      this.app.log.warn({ err: (err as Error).message }, 'messenger: the bot username could not be learned');
      throw new AppError('MESSENGER_FAILED', 'the messenger did not answer; try again shortly');
    });
    return this.username;
  }

  /** Told by the poller, which asks getMe when it starts leading. */
  learned(username: string): void {
    this.username = Promise.resolve(username);
  }
}
