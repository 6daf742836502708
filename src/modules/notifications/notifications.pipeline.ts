import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import type { RecordedEvent, TransactionalListener } from '../../platform/events.js';
import { deliver, type Candidate } from './notifications.deliver.js';
import { NOTIFYING_HISTORY, historyTypeOf, taskCandidates } from './notifications.rules.js';

/**
 * The notification pipeline: one transactional listener that turns each round of recorded events
 * into notifications in the transaction of the change, so a change that rolls back notifies nobody.
 * It runs inside every write, so events that cannot notify anyone cost no query: they are sorted
 * out by type (and task events by history type) first, and the rest need at most one query per
 * kind plus one insert.
 */
export const notificationPipeline: TransactionalListener = async (db, events) => {
  // Task rules need no query: each event's candidates are built now, and told their cause's id once it has one.
  const tasks: Array<{ event: RecordedEvent; candidates: Candidate[] }> = [];
  const messages: RecordedEvent[] = [];
  const reglaments: RecordedEvent[] = [];
  const joins: RecordedEvent[] = [];
  const webhooks: RecordedEvent[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'task.created':
      case 'task.updated':
      case 'task.duplicated':
        // A change that tells nobody leaves the round without a write, so its events can go with the COMMIT.
        if (NOTIFYING_HISTORY.has(historyTypeOf(e) ?? -1)) {
          const candidates = taskCandidates(e);
          if (candidates.length > 0) tasks.push({ event: e, candidates });
        }
        break;
      case 'message.created':
      case 'message.updated':
        messages.push(e);
        break;
      case 'reglament.published':
      case 'reglament.updated':
        // Most reglament edits are of optional or draft ones: those are settled by the payload alone.
        if (mayBeOwed(e.payload as { mandatory?: unknown; draft?: unknown } | null)) reglaments.push(e);
        break;
      case 'space.member.added':
        joins.push(e);
        break;
      case 'webhook.disabled':
        webhooks.push(e);
        break;
      // notification.* (our own output) and everything else notify nobody.
    }
  }
  if (tasks.length + messages.length + reglaments.length + joins.length + webhooks.length === 0) return;

  // Candidates name their cause's event id, so the rest are built once the events have ids.
  return async (emitMore) => {
    const candidates: Candidate[] = tasks.flatMap(({ event, candidates }) => candidates.map((c) => ({ ...c, eventId: event.id })));
    if (messages.length) candidates.push(...(await messageCandidates(db, messages)));
    if (reglaments.length) candidates.push(...(await reglamentCandidates(db, reglaments)));
    if (joins.length) candidates.push(...(await joinCandidates(db, joins)));
    candidates.push(...webhooks.flatMap(webhookCandidates));
    await deliver(db, candidates, emitMore);
  };
};

const mayBeOwed = (r: { mandatory?: unknown; draft?: unknown } | null) => r?.mandatory !== false && r?.draft !== true;
const numberOr = (v: unknown): number | null => (typeof v === 'number' ? v : null);
// Nobody is told of their own action (task rules and webhooks check it as they build candidates).
// Joining a space is the exception: there the cause is the reglament, and the joiner by invite link
// is the actor of their own join.
const notActor = (c: Candidate) => c.actorId == null || c.userId !== c.actorId;

/**
 * From the task chat, one query for the round:
 * - message.mention: whoever a message (new or edited) mentions (stored in message_mentions), once
 *   per message;
 * - message.created (a comment): for a new message, the task's followers (its creator, assignees
 *   and members) other than the author and those the message mentions (the mention is the stronger
 *   notice, and one message tells a user once).
 */
async function messageCandidates(db: Queryable, events: RecordedEvent[]): Promise<Candidate[]> {
  const byMessage = new Map<number, RecordedEvent>();
  const created = new Map<number, RecordedEvent>();
  for (const e of events) {
    const id = numberOr((e.payload as { id?: unknown } | null)?.id);
    if (id === null) continue;
    byMessage.set(id, e);
    if (e.type === 'message.created') created.set(id, e);
  }
  if (byMessage.size === 0) return [];
  const rows = await queryRows<{ kind: 'mention' | 'comment'; messageId: number; userId: number; taskId: number; projectId: number; spaceId: number; name: string }>(
    db,
    sql`with msg as (
          select m.id, m.task_id, m.author_id, m.id = any(${idArray([...created.keys()])}) as created
          from task_messages m where m.id = any(${idArray([...byMessage.keys()])})
        ), addressee as (
          select 'mention' as kind, mm.message_id, mm.user_id from message_mentions mm join msg on msg.id = mm.message_id
          union all
          select 'comment', msg.id, f.user_id
          from msg cross join lateral (
                 select t.creator_id as user_id from tasks t where t.id = msg.task_id
                 union select a.user_id from task_assignees a where a.task_id = msg.task_id
                 union select tm.user_id from task_members tm where tm.task_id = msg.task_id) f
          where msg.created and f.user_id is not null and f.user_id is distinct from msg.author_id
            and not exists (select 1 from message_mentions mm where mm.message_id = msg.id and mm.user_id = f.user_id)
        )
        select a.kind, a.message_id as "messageId", a.user_id as "userId", t.id as "taskId", t.project_id as "projectId", t.space_id as "spaceId", t.name
        from addressee a join msg on msg.id = a.message_id join tasks t on t.id = msg.task_id`,
  );
  return rows
    .map((r): Candidate => {
      const messageId = Number(r.messageId);
      const comment = r.kind === 'comment';
      const e = (comment ? created : byMessage).get(messageId)!;
      return {
        organizationId: e.organizationId,
        userId: Number(r.userId),
        type: comment ? 'message.created' : 'message.mention',
        text: comment ? `New comment in “${r.name}”` : `You were mentioned in “${r.name}”`,
        dedupKey: `${comment ? 'message.created' : 'message.mention'}:${messageId}`,
        taskId: Number(r.taskId),
        projectId: Number(r.projectId),
        spaceId: Number(r.spaceId),
        actorId: e.actorId,
        eventId: e.id,
      };
    })
    .filter(notActor);
}

interface OwedRow {
  reglamentId: number;
  name: string;
  spaceId: number;
  userId: number;
  organizationId: number;
}

const reglamentCandidate = (e: RecordedEvent, r: OwedRow): Candidate => ({
  organizationId: Number(r.organizationId),
  userId: Number(r.userId),
  type: 'reglament.mandatory',
  text: `Please read and pass the mandatory reglament “${r.name}”`,
  dedupKey: `reglament.mandatory:${Number(r.reglamentId)}`,
  spaceId: Number(r.spaceId),
  actorId: e.actorId,
  eventId: e.id,
});

// Published, mandatory and not yet passed by the member: what GET /user/reglaments/mandatory lists.
const OWED = sql`r.mandatory and not r.draft
  and not exists (select 1 from reglament_passes p where p.reglament_id = r.id and p.user_id = sm.user_id)`;

/** reglament.mandatory for every member of the reglament's spaces who still owes it. */
async function reglamentCandidates(db: Queryable, events: RecordedEvent[]): Promise<Candidate[]> {
  const byReglament = new Map<number, RecordedEvent>();
  for (const e of events) {
    const id = numberOr((e.payload as { id?: unknown } | null)?.id);
    if (id !== null) byReglament.set(id, e);
  }
  if (byReglament.size === 0) return [];
  const rows = await queryRows<OwedRow>(
    db,
    sql`select distinct r.id as "reglamentId", r.name, r.space_id as "spaceId", sm.user_id as "userId", r.organization_id as "organizationId"
        from reglaments r join reglament_spaces rs on rs.reglament_id = r.id join space_members sm on sm.space_id = rs.space_id
        where r.id = any(${idArray([...byReglament.keys()])}) and ${OWED}`,
  );
  return rows.map((r) => reglamentCandidate(byReglament.get(Number(r.reglamentId))!, r)).filter(notActor);
}

/**
 * reglament.mandatory for someone who joined a space holding mandatory reglaments they have not
 * passed, whoever added them: the joiner by invite link is also the event's actor, and is told all
 * the same (the cause is the reglament, not the join).
 */
async function joinCandidates(db: Queryable, events: RecordedEvent[]): Promise<Candidate[]> {
  const pairs = events.flatMap((e, i) => {
    const userId = numberOr((e.payload as { userId?: unknown } | null)?.userId);
    return e.spaceId !== null && userId !== null ? [{ i, space_id: e.spaceId, user_id: userId }] : [];
  });
  if (pairs.length === 0) return [];
  const rows = await queryRows<OwedRow & { i: number }>(
    db,
    sql`select sm.i, r.id as "reglamentId", r.name, r.space_id as "spaceId", sm.user_id as "userId", r.organization_id as "organizationId"
        from jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) as sm(i int, space_id bigint, user_id bigint)
        join reglament_spaces rs on rs.space_id = sm.space_id join reglaments r on r.id = rs.reglament_id
        where ${OWED}`,
  );
  return rows.map((r) => reglamentCandidate(events[Number(r.i)]!, r));
}

/** webhook.disabled: its creator, once per disabling (a re-enabled webhook that fails again is news). */
function webhookCandidates(e: RecordedEvent): Candidate[] {
  const hook = e.payload as { id?: unknown; url?: unknown; creatorId?: unknown; spaceId?: unknown; projectId?: unknown } | null;
  const creatorId = numberOr(hook?.creatorId);
  const id = numberOr(hook?.id);
  if (creatorId === null || id === null || creatorId === e.actorId) return [];
  return [
    {
      organizationId: e.organizationId,
      userId: creatorId,
      type: 'webhook.disabled',
      text: `Webhook ${typeof hook?.url === 'string' ? hook.url : `#${id}`} was disabled after repeated delivery failures`,
      dedupKey: `webhook.disabled:${id}:${e.id}`,
      spaceId: numberOr(hook?.spaceId),
      projectId: numberOr(hook?.projectId),
      actorId: e.actorId,
      eventId: e.id,
    },
  ];
}
