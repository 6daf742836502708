import type { ReglamentEventAction } from '../../db/schema/index.js';
import { reglamentEvents } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import { emit, type Completer, type EventType } from '../../platform/events.js';
import { reglamentIdOf } from '../../platform/event-types.js';
import type { QuestionDto } from './questions/questions.schemas.js';

/** Appends to the reglament's full history; called inside the transaction of the change it records. */
export async function recordEvent(ctx: Ctx, reglamentId: number, action: ReglamentEventAction, details: Record<string, unknown> = {}): Promise<void> {
  await ctx.db.insert(reglamentEvents).values({ organizationId: ctx.actor.organizationId, reglamentId, userId: ctx.actor.userId, action, details });
}

/**
 * A reglament.* change, for the readers of every space showing the reglament (the real-time hub
 * looks them up at delivery; the home space is kept for filters). `recordEvent` above is the
 * reglament's own history (every action, for its history route); this is the change log clients follow.
 */
export function emitReglament(ctx: Ctx, type: EventType, homeSpaceId: number, payload: unknown): void {
  emit(ctx, { type, spaceId: homeSpaceId, payload, completer: draftAudience });
}

/**
 * A draft is for its space's editors: every event about a reglament that is a draft when the
 * transaction commits is marked editors-only, for good (publishing later does not open the draft's
 * history to readers). One query for all the transaction's reglament events.
 */
const draftAudience: Completer = {
  name: 'reglament-draft',
  async complete(db, organizationId, events) {
    const ids = [...new Set(events.map((e) => reglamentIdOf(e.type, e.payload)).filter((id): id is number => id !== null))];
    if (ids.length === 0) return;
    const drafts = await queryRows<{ id: number }>(
      db,
      sql`select id from reglaments where organization_id = ${organizationId} and draft and id = any(${idArray(ids)})`,
    );
    const draft = new Set(drafts.map((r) => Number(r.id)));
    for (const e of events) if (draft.has(reglamentIdOf(e.type, e.payload) ?? 0)) e.editorsOnly = true;
  },
};

/** Readers may receive question events, so which answers are right never travels with them. */
export const questionForReaders = (q: QuestionDto): QuestionDto => ({ ...q, answers: q.answers.map((a) => ({ ...a, isRight: null })) });
