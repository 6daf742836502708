import type { ReglamentEventAction } from '../../db/schema/index.js';
import { reglamentEvents } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { emit, type EventType } from '../../platform/events.js';
import type { QuestionDto } from './questions/questions.schemas.js';

/** Appends to the reglament's full history; called inside the transaction of the change it records. */
export async function recordEvent(ctx: Ctx, reglamentId: number, action: ReglamentEventAction, details: Record<string, unknown> = {}): Promise<void> {
  await ctx.db.insert(reglamentEvents).values({ organizationId: ctx.actor.organizationId, reglamentId, userId: ctx.actor.userId, action, details });
}

/**
 * A reglament.* change for the readers of the reglament's home space. `recordEvent` above is the
 * reglament's own history (every action, for its history route); this is the change log clients follow.
 */
export function emitReglament(ctx: Ctx, type: EventType, homeSpaceId: number, payload: unknown): void {
  emit(ctx, { type, spaceId: homeSpaceId, payload });
}

/** Readers may receive question events, so which answers are right never travels with them. */
export const questionForReaders = (q: QuestionDto): QuestionDto => ({ ...q, answers: q.answers.map((a) => ({ ...a, isRight: null })) });
