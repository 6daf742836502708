import type { ReglamentEventAction } from '../../db/schema/index.js';
import { reglamentEvents } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';

/** Appends to the reglament's full history; called inside the transaction of the change it records. */
export async function recordEvent(ctx: Ctx, reglamentId: number, action: ReglamentEventAction, details: Record<string, unknown> = {}): Promise<void> {
  await ctx.db.insert(reglamentEvents).values({ organizationId: ctx.actor.organizationId, reglamentId, userId: ctx.actor.userId, action, details });
}
