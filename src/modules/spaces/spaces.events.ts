import type { Ctx } from '../../platform/context.js';
import { emit, type EventType } from '../../platform/events.js';
import type { SpaceFullDto } from './spaces.schemas.js';
import { loadSpaceFull } from './spaces.queries.js';

/** Space(full) for every reader of the space: the invite link is shown to space admins only. */
export const spaceForReaders = (space: SpaceFullDto): SpaceFullDto => ({ ...space, inviteLink: null });

/**
 * A change of the space or of its groups (project, reglament and documentation groups are part of
 * Space(full)): the space as it now reads, once.
 */
export async function emitSpaceFull(ctx: Ctx, type: EventType, spaceId: number, loaded?: SpaceFullDto): Promise<void> {
  const space = loaded ?? (await loadSpaceFull(ctx.db, ctx.actor, spaceId));
  emit(ctx, { type, spaceId, payload: spaceForReaders(space) });
}
