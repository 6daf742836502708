import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import type { RecordedEvent, TransactionalListener } from '../../platform/events.js';
import { Drain } from '../../platform/jobs.js';
import { DurableQueue, type Claim } from '../../platform/queue.js';
import { PROJECT_EVENT_TYPES } from './messenger.schemas.js';
import { notificationText, projectEventText, type NotificationFacts } from './messenger.texts.js';
import { TelegramError, type TelegramClient } from './telegram.client.js';

/**
 * The durable outbox of the bot. Messages are queued in the transaction of their cause (so a change
 * that rolls back sends nothing and one that commits cannot lose its message) and sent after commit
 * by whichever instance claims them, in id order per chat.
 */

export interface OutboxRow {
  organizationId: number | null;
  chatId: number;
  text: string;
  notificationId?: number | null;
  taskId?: number | null;
  userId?: number | null;
}

export async function enqueue(db: Queryable, rows: OutboxRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const json = rows.map((r) => ({
    organization_id: r.organizationId,
    chat_id: r.chatId,
    text: r.text,
    notification_id: r.notificationId ?? null,
    task_id: r.taskId ?? null,
    user_id: r.userId ?? null,
  }));
  const inserted = await queryRows<{ id: number }>(
    db,
    sql`insert into messenger_outbox (organization_id, chat_id, text, notification_id, task_id, user_id)
        select r.organization_id, r.chat_id, r.text, r.notification_id, r.task_id, r.user_id
        from jsonb_to_recordset(${JSON.stringify(json)}::jsonb)
          as r(organization_id bigint, chat_id bigint, text text, notification_id bigint, task_id bigint, user_id bigint)
        on conflict (notification_id) do nothing
        returning id`,
  );
  return inserted.length;
}

const DESCRIBED = new Set<string>(PROJECT_EVENT_TYPES);

/** Queues a connected user's notifications, and the chosen events of projects bound to a group. */
export function queueMessages(publicUrl: string, onQueued: (organizationIds: number[]) => void): TransactionalListener {
  return async (db, events) => {
    const notifications = events.filter((e) => e.type === 'notification.created');
    const board = events.filter((e) => e.projectId !== null && DESCRIBED.has(e.type));
    const rows = [...(await notificationRows(db, notifications, publicUrl)), ...(await projectRows(db, board, publicUrl))];
    if (rows.length === 0) return;
    return async () => {
      if ((await enqueue(db, rows)) > 0) onQueued([...new Set(rows.map((r) => r.organizationId).filter((o): o is number => o !== null))]);
    };
  };
}

async function notificationRows(db: Queryable, events: RecordedEvent[], publicUrl: string): Promise<OutboxRow[]> {
  if (events.length === 0) return [];
  const ids = events.map((e) => (e.payload as { id: number }).id);
  const found = await queryRows<NotificationFacts & { id: number; org: number; userId: number; chatId: number }>(
    db,
    sql`select n.id, n.organization_id as org, n.user_id as "userId", mi.chat_id as "chatId", n.text, n.task_id as "taskId",
               t.name as "taskName", p.name as "projectName", u.name as "actorName"
        from notifications n
        join messenger_integrations mi on mi.user_id = n.user_id and mi.status = 'active' and mi.notify
        left join tasks t on t.id = n.task_id
        left join projects p on p.id = coalesce(t.project_id, n.project_id)
        left join users u on u.id = n.actor_id
        where n.id = any(${idArray(ids)})`,
  );
  return found.map((n) => ({
    organizationId: Number(n.org),
    chatId: Number(n.chatId),
    text: notificationText({ ...n, taskId: n.taskId === null ? null : Number(n.taskId) }, publicUrl),
    notificationId: Number(n.id),
    taskId: n.taskId === null ? null : Number(n.taskId),
    userId: Number(n.userId),
  }));
}

async function projectRows(db: Queryable, events: RecordedEvent[], publicUrl: string): Promise<OutboxRow[]> {
  if (events.length === 0) return [];
  const projectIds = [...new Set(events.map((e) => e.projectId!))];
  const chats = await queryRows<{ projectId: number; chatId: number; events: string[]; project: string }>(
    db,
    sql`select pmi.project_id as "projectId", pmi.chat_id as "chatId", pmi.events, p.name as project
        from project_messenger_integrations pmi join projects p on p.id = pmi.project_id
        where pmi.project_id = any(${idArray(projectIds)}) and pmi.status = 'active' and pmi.enabled`,
  );
  if (chats.length === 0) return [];
  const wanted = events.filter((e) => chats.some((c) => Number(c.projectId) === e.projectId && c.events.includes(e.type)));
  if (wanted.length === 0) return [];
  const actorIds = [...new Set(wanted.map((e) => e.actorId).filter((a): a is number => a !== null))];
  const taskIds = [...new Set(wanted.map((e) => e.taskId).filter((t): t is number => t !== null))];
  // One statement (a transaction's connection runs one query at a time).
  const named = await queryRows<{ kind: 'u' | 't'; id: number; name: string }>(
    db,
    sql`select 'u' as kind, id, name from users where id = any(${idArray(actorIds)})
        union all select 't', id, name from tasks where id = any(${idArray(taskIds)})`,
  );
  const actorName = new Map(named.filter((n) => n.kind === 'u').map((a) => [Number(a.id), a.name]));
  const taskName = new Map(named.filter((n) => n.kind === 't').map((t) => [Number(t.id), t.name]));
  const rows: OutboxRow[] = [];
  for (const e of wanted) {
    for (const chat of chats) {
      if (Number(chat.projectId) !== e.projectId || !chat.events.includes(e.type)) continue;
      const names = { actor: e.actorId === null ? null : (actorName.get(e.actorId) ?? null), task: e.taskId === null ? null : (taskName.get(e.taskId) ?? null), project: chat.project };
      const text = projectEventText(e, names, publicUrl);
      if (text) rows.push({ organizationId: e.organizationId, chatId: Number(chat.chatId), text, taskId: e.taskId });
    }
  }
  return rows;
}

// ---- the sender ----

const BATCH = 20;

/**
 * The outbox on the shared queue (platform/queue.ts): a claim leases a row for a minute, so an
 * instance that dies mid-send leaves it to be taken again then; a failure waits 2^attempt seconds,
 * and the tenth is the last.
 */
const queue = new DurableQueue(
  { table: 'messenger_outbox', clearDue: false, updatedAt: null, order: 'key' },
  { leaseMs: 60_000, retrySchedule: (attempt) => (attempt >= 10 ? undefined : Math.min(3600, 2 ** attempt) * 1000) },
);

// Only a chat's oldest pending message is due: a chat's messages keep their order, and a chat
// waiting out a 429 holds only itself back.
const oldestOfItsChat = sql`not exists (select 1 from messenger_outbox e
  where e.chat_id = messenger_outbox.chat_id and e.status = 'pending' and e.id < messenger_outbox.id)`;

interface Claimed {
  id: number;
  chatId: number;
  text: string;
}

/** Sends what is due, the oldest pending message of each chat at a time. */
export class OutboxSender {
  private readonly drainer = new Drain(() => this.round());

  constructor(
    private readonly app: FastifyInstance,
    private readonly client: TelegramClient,
  ) {}

  drain(): Promise<void> {
    return this.drainer.run();
  }

  stop(): Promise<void> {
    return this.drainer.stop();
  }

  private async round(): Promise<number> {
    const db = this.app.database.db;
    const claims = await queue.claim(db, BATCH, oldestOfItsChat);
    if (claims.length === 0) return 0;
    const rows = await queryRows<Claimed>(
      db,
      sql`select id, chat_id as "chatId", text from messenger_outbox where id = any(${idArray(claims.map((c) => c.id))})`,
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    await Promise.all(claims.map((c) => byId.has(c.id) && this.send(c, byId.get(c.id)!)));
    return claims.length;
  }

  private async send(claim: Claim, m: Claimed): Promise<void> {
    const db = this.app.database.db;
    try {
      const sent = await this.client.sendMessage(Number(m.chatId), m.text);
      await queue.succeed(db, claim, sql`, sent_message_id = ${sent.message_id}, sent_at = now()`);
      return;
    } catch (err) {
      const e = err instanceof TelegramError ? err : new TelegramError(0, (err as Error).message, null);
      if (e.status === 429) {
        // Telegram says when: wait that long, and it does not count as a failed attempt.
        await queue.release(db, claim, Math.max(1, e.retryAfterSec ?? 1) * 1000, e.message);
        return;
      }
      if (e.status === 403) {
        // Blocked by the user or removed from the group: nothing more goes to that chat.
        this.app.log.warn({ chatId: m.chatId, outboxId: m.id, error: e.message }, 'messenger: the bot may no longer write to this chat; its integrations are now inactive');
        await db.execute(sql`update messenger_outbox set status = 'dropped', last_error = ${e.message} where chat_id = ${m.chatId} and status = 'pending'`);
        await db.execute(sql`update messenger_integrations set status = 'inactive', updated_at = now() where chat_id = ${m.chatId} and status = 'active'`);
        await db.execute(sql`update project_messenger_integrations set status = 'inactive', updated_at = now() where chat_id = ${m.chatId} and status = 'active'`);
        return;
      }
      const outcome = await queue.fail(db, claim, e.message, e.status !== 400 && e.status !== 404);
      if (outcome === 'failed') this.app.log.warn({ chatId: m.chatId, outboxId: m.id, error: e.message }, 'messenger: message given up');
    }
  }
}
