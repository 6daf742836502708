import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small Telegram Bot API for tests, on 127.0.0.1: getMe, setMyCommands, getUpdates (long
 * polling; an offset confirms what is below it; a second concurrent poll ends the first with 409,
 * as Telegram does) and sendMessage (with scripted failures per chat).
 */

export interface SentMessage {
  chatId: number;
  messageId: number;
  text: string;
}

interface Update {
  update_id: number;
  message: Record<string, unknown>;
}

interface Failure {
  status: number;
  description: string;
  retryAfter?: number;
}

export class FakeTelegram {
  readonly token: string;
  readonly username = 'board_test_bot';
  readonly sent: SentMessage[] = [];
  /** sendMessage calls, failed ones included. */
  attempts = 0;
  /** getUpdates calls ended by another one (two pollers at once). */
  conflicts = 0;
  commands: unknown = null;
  private server: http.Server | null = null;
  private updates: Update[] = [];
  private nextUpdate = 1;
  private nextMessage = 100;
  private confirmed = 0;
  private waiting: { answer: (updates: Update[] | null) => void; offset: number } | null = null;
  private readonly failures = new Map<number, Failure[]>();
  private down = false;

  constructor(token = `T${Math.random().toString(36).slice(2)}`) {
    this.token = token;
  }

  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.route(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.waiting?.answer([]);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A user writes to the bot (private chat = their id) or in a group (negative id). */
  say(chat: { id: number; type?: 'private' | 'group' | 'supergroup'; title?: string }, from: { id: number; username?: string }, text: string, replyTo?: number): number {
    const update: Update = {
      update_id: this.nextUpdate++,
      message: {
        message_id: this.nextMessage++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chat.id, type: chat.type ?? 'private', ...(chat.title ? { title: chat.title } : {}) },
        from: { id: from.id, is_bot: false, first_name: from.username ?? 'user', ...(from.username ? { username: from.username } : {}) },
        text,
        ...(replyTo ? { reply_to_message: { message_id: replyTo, chat: { id: chat.id, type: chat.type ?? 'private' }, date: 0 } } : {}),
      },
    };
    this.updates.push(update);
    this.flush();
    return update.update_id;
  }

  /** Updates the bot has confirmed (asked for an offset past them). */
  get confirmedUpTo(): number {
    return this.confirmed;
  }

  /** The next sendMessage calls to this chat fail like this, in order. */
  fail(chatId: number, ...failures: Failure[]): void {
    this.failures.set(chatId, [...(this.failures.get(chatId) ?? []), ...failures]);
  }

  /** While down, every sendMessage answers 502. */
  setDown(down: boolean): void {
    this.down = down;
  }

  messagesTo(chatId: number): SentMessage[] {
    return this.sent.filter((m) => m.chatId === chatId);
  }

  private pendingFrom(offset: number): Update[] {
    return this.updates.filter((u) => u.update_id >= offset);
  }

  private flush(): void {
    const w = this.waiting;
    if (!w) return;
    const ready = this.pendingFrom(w.offset);
    if (ready.length > 0) {
      this.waiting = null;
      w.answer(ready);
    }
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const [, bot, method] = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '') ?? [];
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const ok = (result: unknown) => reply(200, { ok: true, result });
    const error = (status: number, description: string, retryAfter?: number) =>
      reply(status, { ok: false, error_code: status, description, ...(retryAfter ? { parameters: { retry_after: retryAfter } } : {}) });
    if (bot !== this.token) return error(401, 'Unauthorized');
    switch (method) {
      case 'getMe':
        return ok({ id: 42, is_bot: true, first_name: 'Board', username: this.username });
      case 'setMyCommands':
        this.commands = body.commands;
        return ok(true);
      case 'getUpdates': {
        const offset = Number(body.offset ?? 0);
        this.confirmed = Math.max(this.confirmed, offset - 1);
        this.updates = this.updates.filter((u) => u.update_id >= offset);
        if (this.waiting) {
          this.conflicts++;
          const old = this.waiting;
          this.waiting = null;
          old.answer(null);
        }
        const ready = this.pendingFrom(offset);
        if (ready.length > 0) return ok(ready);
        const timeout = Number(body.timeout ?? 0) * 1000;
        const answer = await new Promise<Update[] | null>((resolve) => {
          const timer = setTimeout(() => {
            if (this.waiting?.answer === done) this.waiting = null;
            resolve([]);
          }, timeout);
          const done = (u: Update[] | null) => {
            clearTimeout(timer);
            resolve(u);
          };
          this.waiting = { answer: done, offset };
          req.on('close', () => {
            if (res.writableEnded) return;
            if (this.waiting?.answer === done) this.waiting = null;
          });
        });
        if (answer === null) return error(409, 'Conflict: terminated by other getUpdates request');
        return ok(answer);
      }
      case 'sendMessage': {
        this.attempts++;
        const chatId = Number(body.chat_id);
        if (this.down) return error(502, 'Bad Gateway');
        const failure = this.failures.get(chatId)?.shift();
        if (failure) return error(failure.status, failure.description, failure.retryAfter);
        const message = { chatId, messageId: this.nextMessage++, text: String(body.text) };
        this.sent.push(message);
        return ok({ message_id: message.messageId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: chatId > 0 ? 'private' : 'group' }, text: message.text });
      }
      default:
        return error(404, 'Not Found: method not found');
    }
  }
}
