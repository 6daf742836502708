import { and, eq, sql } from 'drizzle-orm';
import { reglamentSpaces, reglaments, spaces } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { emit } from '../../../platform/events.js';
import { loadSpace } from '../../spaces/spaces.queries.js';
import type { SpaceDto } from '../../spaces/spaces.schemas.js';
import { authorizeReglamentSpace } from '../reglaments.policy.js';

/**
 * Sets (or with null resets) the reglament a space greets its members with. It must be a published
 * reglament shown in that space: newcomers are asked to pass it (GET /user/reglaments/mandatory).
 */
export async function setIntroReglament(ctx: Ctx, spaceId: number, reglamentId: number | null): Promise<SpaceDto> {
  const { db, actor } = ctx;
  await authorizeReglamentSpace(db, actor, spaceId, 'setIntro');
  if (reglamentId !== null) {
    const [shown] = await db
      .select({ draft: reglaments.draft })
      .from(reglamentSpaces)
      .innerJoin(reglaments, eq(reglaments.id, reglamentSpaces.reglamentId))
      .where(and(eq(reglamentSpaces.spaceId, spaceId), eq(reglamentSpaces.reglamentId, reglamentId), eq(reglaments.organizationId, actor.organizationId)));
    if (!shown) throw new AppError('REFERENCE_NOT_FOUND', 'reglamentId is not a reglament shown in this space');
    if (shown.draft) throw new AppError('BAD_REQUEST', 'a draft cannot be the intro reglament; publish it first');
  }
  // The spaces module owns this column but offers no use case for it; the write is one guarded update.
  await db
    .update(spaces)
    .set({ introReglamentId: reglamentId, updatedAt: sql`now()` })
    .where(and(eq(spaces.id, spaceId), eq(spaces.organizationId, actor.organizationId)));
  const space = await loadSpace(db, actor, spaceId);
  emit(ctx, { type: 'space.updated', spaceId, payload: space });
  return space;
}
