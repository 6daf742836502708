import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { withTransaction } from '../../db/tx.js';
import type { Actor, OrgRole } from '../../platform/auth.js';
import { systemWrite, writeAs } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { sendMessage } from '../tasks/messages/messages.service.js';
import type { MessengerBot } from './messenger.bot.js';
import { enqueue } from './messenger.outbox.js';
import { PERSONAL_COLUMNS, presentPersonal, type PersonalRow } from './messenger.presenter.js';
import { redeem } from './messenger.service.js';
import { escapeHtml } from './messenger.texts.js';
import type { TelegramMessage, TelegramUpdate } from './telegram.client.js';

/** Confirms the update in the transaction given (moves the poller's offset past it). */
export type Confirm = (db: Queryable) => Promise<void>;

const HELP_PRIVATE = [
  'I send you your notifications from the task board.',
  'Connect: create the messenger integration in your profile and open its link (or send <code>/start &lt;code&gt;</code>).',
  "Reply to a task notification to answer in that task's chat. /stop disconnects this chat.",
].join('\n');
const HELP_GROUP = 'I post a project’s events here. An editor of the project creates its messenger integration and opens the link, or sends <code>/start &lt;code&gt;</code> here.';
const REPLY_MAX = 10_000;
// What arrives from Telegram is not validated by our schemas: PostgreSQL text cannot hold NUL.
const storable = (text: string) => text.replace(/\u0000/g, '');

/**
 * One update from the bot: `/start <code>` binds the chat (a private chat to its user, a group to a
 * project), `/stop` unbinds a private chat, a reply to a task notification is posted to that task's
 * chat as the connected user. Every path confirms the update in the transaction of its effects,
 * the bot's answer included (queued in the outbox).
 */
export async function handleUpdate(app: FastifyInstance, bot: MessengerBot, update: TelegramUpdate, confirm: Confirm): Promise<void> {
  const m = update.message;
  const answer = (text: string) => answerOnly(app, m!, text, confirm);
  // Nothing for the bot to do: the update is only confirmed.
  const confirmOnly = () => withTransaction(app.database.db, ({ tx }) => confirm(tx));
  if (!m || typeof m.text !== 'string' || m.from?.is_bot) return confirmOnly();
  const isPrivate = m.chat.type === 'private';
  const [first = '', ...args] = m.text.trim().split(/\s+/);
  const command = /^\/([a-z_]+)(?:@(\w+))?$/i.exec(first);
  // In a group, a command for another bot is not ours.
  if (command?.[2] && command[2].toLowerCase() !== (await bot.botUsername()).toLowerCase()) return confirmOnly();
  const name = command?.[1]?.toLowerCase();

  if (name === 'start') {
    const code = args[0];
    if (!code) return answer(isPrivate ? HELP_PRIVATE : HELP_GROUP);
    const chat = {
      chatId: m.chat.id,
      messengerUserId: m.from?.id ?? null,
      username: m.from?.username ? storable(m.from.username) : null,
      chatTitle: m.chat.title ? storable(m.chat.title) : null,
      kind: isPrivate ? ('private' as const) : ('group' as const),
    };
    const unknown = isPrivate
      ? 'This code is unknown, used or expired (codes last 10 minutes). Create a new one in your profile and open its link again.'
      : 'This code is unknown, used or expired, or is a personal one. Create the project’s messenger integration again and use its group link.';
    let answered = false;
    await redeem(app, bot, storable(code).slice(0, 64), chat, async (db, redeemed) => {
      answered = true;
      await confirm(db);
      const text = !redeemed
        ? unknown
        : redeemed.kind === 'personal'
          ? "Connected. Your notifications will arrive here; reply to one to answer in the task's chat. /stop disconnects."
          : `Connected. This group will get the project's ${redeemed.integration.events.join(', ')} events.`;
      await enqueue(db, [{ organizationId: null, chatId: m.chat.id, text }]);
    });
    if (!answered) await answer(unknown);
    return;
  }
  if (name === 'stop') return isPrivate ? stop(app, bot, m, confirm) : answer('An editor of the project can disconnect this group in the project’s settings.');
  if (name === 'help') return answer(isPrivate ? HELP_PRIVATE : HELP_GROUP);
  // A group's talk is not for the bot.
  if (!isPrivate) return confirmOnly();
  if (m.reply_to_message) return reply(app, m, m.reply_to_message.message_id, confirm);
  return answer(HELP_PRIVATE);
}

/** The bot says something and the update is confirmed, in one transaction. */
async function answerOnly(app: FastifyInstance, m: TelegramMessage, text: string, confirm: Confirm): Promise<void> {
  await withTransaction(app.database.db, async ({ tx }) => {
    await confirm(tx);
    await enqueue(tx, [{ organizationId: null, chatId: m.chat.id, text }]);
  });
}

/** /stop in a private chat: every integration bound to it goes, each user told by integration.disconnected. */
async function stop(app: FastifyInstance, bot: MessengerBot, m: TelegramMessage, confirm: Confirm): Promise<void> {
  const bound = await queryRows<{ userId: number; org: number | null }>(
    app.database.db,
    sql`select mi.user_id as "userId", u.active_organization_id as org from messenger_integrations mi join users u on u.id = mi.user_id
        where mi.chat_id = ${m.chat.id} and mi.status <> 'pending'`,
  );
  const org = bound.find((b) => b.org !== null)?.org;
  if (org == null) return answerOnly(app, m, 'This chat is not connected.', confirm);
  const username = await bot.botUsername();
  await systemWrite(app, Number(org), async ({ db }) => {
    const rows = await queryRows<PersonalRow>(
      db,
      sql`delete from messenger_integrations where chat_id = ${m.chat.id} and status <> 'pending' returning ${sql.raw(PERSONAL_COLUMNS)}`,
    );
    for (const row of rows) {
      const home = bound.find((b) => Number(b.userId) === Number(row.userId))?.org;
      if (row.status === 'active' && home != null) {
        emit(db, { type: 'integration.disconnected', organizationId: Number(home), userId: Number(row.userId), payload: presentPersonal(row, username) });
      }
    }
    await confirm(db);
    await enqueue(db, [{ organizationId: null, chatId: m.chat.id, text: 'Disconnected: no more notifications here. Connect again from your profile.' }]);
  });
}

/**
 * A reply to a notification: posted to the task's chat as the user it was sent to, if they may
 * still write there; otherwise the bot says why. Replies to anything else get a hint.
 */
async function reply(app: FastifyInstance, m: TelegramMessage, repliedTo: number, confirm: Confirm): Promise<void> {
  const [target] = await queryRows<{ taskId: number; org: number; userId: number; role: OrgRole | null; connected: boolean }>(
    app.database.db,
    sql`select o.task_id as "taskId", o.organization_id as org, o.user_id as "userId",
               (select om.role from organization_members om where om.organization_id = o.organization_id and om.user_id = o.user_id
                  and om.active and om.deleted_at is null) as role,
               exists (select 1 from messenger_integrations mi where mi.user_id = o.user_id and mi.chat_id = o.chat_id and mi.status = 'active') as connected
        from messenger_outbox o
        where o.chat_id = ${m.chat.id} and o.sent_message_id = ${repliedTo} and o.task_id is not null and o.user_id is not null`,
  );
  if (!target) return answerOnly(app, m, "Reply to a task notification to answer in that task's chat.", confirm);
  if (!target.connected || !target.role) return answerOnly(app, m, 'Not posted: this account can no longer write in that organization.', confirm);
  const text = storable(m.text ?? '').slice(0, REPLY_MAX);
  const actor: Actor = { userId: Number(target.userId), organizationId: Number(target.org), orgRole: target.role, sessionId: null, tokenId: null };
  try {
    await writeAs(app, actor, app.log, async (ctx) => {
      await sendMessage(ctx, app.files, Number(target.taskId), { text });
      await confirm(ctx.db);
      await enqueue(ctx.db, [{ organizationId: actor.organizationId, chatId: m.chat.id, text: "✓ Added to the task's chat." }]);
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // 404/403 and the like: the task is gone or no longer theirs to write in.
    await answerOnly(app, m, `Not posted: ${escapeHtml(err.message)}.`, confirm);
  }
}
