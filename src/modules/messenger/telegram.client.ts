import { allowedHostsOf, guardedFetch } from '../../platform/outbound.js';

/**
 * A client of the Telegram Bot API (https://core.telegram.org/bots/api): POST
 * `{apiUrl}/bot{token}/{method}` with a JSON body, answered `{ok, result}` or `{ok: false,
 * error_code, description, parameters: {retry_after}}`. Plain fetch rather than a bot framework:
 * the service needs five methods, its own offset handling (an update is confirmed in the
 * transaction that handled it) and the shared outbound guard on every connection.
 */

export interface TelegramUser {
  id: number;
  is_bot?: boolean;
  username?: string;
  first_name?: string;
}

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
}

export interface TelegramMessage {
  message_id: number;
  chat: TelegramChat;
  from?: TelegramUser;
  text?: string;
  reply_to_message?: { message_id: number };
}

export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
}

/** A refusal by the Bot API: its status, what it said, and how long it asked us to wait (429). */
export class TelegramError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSec: number | null,
  ) {
    super(message);
  }
}

export interface TelegramConfig {
  telegramBotToken: string | null;
  telegramApiUrl: string;
  outboundAllowedHosts: readonly string[];
}

export class TelegramClient {
  private readonly fetch: typeof globalThis.fetch;
  private readonly base: string;

  constructor(
    private readonly config: TelegramConfig & { telegramBotToken: string },
    log?: { warn(details: Record<string, unknown>, message: string): void },
  ) {
    this.fetch = guardedFetch({ allowedHosts: allowedHostsOf(config), subject: { label: 'the messenger bot', code: 'OUTBOUND_URL_FORBIDDEN' }, log });
    this.base = `${config.telegramApiUrl}/bot${config.telegramBotToken}`;
  }

  getMe(): Promise<TelegramUser> {
    return this.call('getMe', {});
  }

  /** Long polling: waits up to `timeoutSec` for updates from `offset` on (which confirms the ones before it). */
  getUpdates(offset: number, timeoutSec: number, signal?: AbortSignal): Promise<TelegramUpdate[]> {
    return this.call('getUpdates', { offset, timeout: timeoutSec, allowed_updates: ['message'] }, { signal, timeoutMs: (timeoutSec + 15) * 1000 });
  }

  sendMessage(chatId: number, text: string, replyTo?: number): Promise<TelegramMessage> {
    return this.call('sendMessage', {
      chat_id: chatId,
      text,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
      ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
    });
  }

  setMyCommands(commands: Array<{ command: string; description: string }>): Promise<boolean> {
    return this.call('setMyCommands', { commands });
  }

  private async call<T>(method: string, body: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    let res: Response;
    try {
      res = await this.fetch(`${this.base}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
    } catch (err) {
      // The URL holds the token: never let it reach a log line through an error message.
      throw new TelegramError(0, `${method}: ${this.scrub((err as Error).message)}`, null);
    }
    const data = (await res.json().catch(() => null)) as {
      ok?: boolean;
      result?: T;
      description?: string;
      error_code?: number;
      parameters?: { retry_after?: number };
    } | null;
    if (res.ok && data?.ok) return data.result as T;
    const retryAfter = data?.parameters?.retry_after ?? (Number(res.headers.get('retry-after')) || null);
    throw new TelegramError(data?.error_code ?? res.status, `${method}: ${this.scrub(data?.description ?? `HTTP ${res.status}`)}`, retryAfter);
  }

  private scrub(text: string): string {
    return text.split(this.config.telegramBotToken).join('<token>');
  }
}
