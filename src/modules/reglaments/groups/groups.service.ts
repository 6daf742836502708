import { and, eq, sql } from 'drizzle-orm';
import { reglamentGroups, reglamentSpaces } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { compact, lockOrder, placeAt, writeOrder, type OrderedScope } from '../../../platform/ordering.js';
import { orderToInt } from '../../../platform/schemas.js';
import { recordEvent } from '../reglaments.events.js';
import { authorizeReglamentSpace } from '../reglaments.policy.js';
import { announceReglament, placementsIn } from '../reglaments.service.js';
import { emitSpaceFull } from '../../spaces/spaces.events.js';
import { presentReglamentGroup } from './groups.presenter.js';
import type { ReglamentGroupDto } from './groups.schemas.js';

const groupsOf = (spaceId: number): OrderedScope => ({ table: 'reglament_groups', key: 'id', where: sql`space_id = ${spaceId}` });

/** Authorizes on the space, then finds the group in it (404 when it is not there). */
async function authorizeGroup(ctx: Ctx, spaceId: number, groupId: number) {
  await authorizeReglamentSpace(ctx.db, ctx.actor, spaceId, 'manageGroups');
  const [group] = await ctx.db
    .select()
    .from(reglamentGroups)
    .where(and(eq(reglamentGroups.id, groupId), eq(reglamentGroups.spaceId, spaceId), eq(reglamentGroups.organizationId, ctx.actor.organizationId)));
  if (!group) throw notFound('reglament group');
  return group;
}

async function loadGroup(ctx: Ctx, groupId: number): Promise<ReglamentGroupDto> {
  const [group] = await ctx.db.select().from(reglamentGroups).where(eq(reglamentGroups.id, groupId));
  if (!group) throw notFound('reglament group');
  return presentReglamentGroup(group);
}

export async function createReglamentGroup(ctx: Ctx, spaceId: number, input: { name: string; order?: number | string }): Promise<ReglamentGroupDto> {
  await authorizeReglamentSpace(ctx.db, ctx.actor, spaceId, 'manageGroups');
  const [row] = await ctx.db
    .insert(reglamentGroups)
    .values({ organizationId: ctx.actor.organizationId, spaceId, name: input.name.trim(), order: 0 })
    .returning({ id: reglamentGroups.id });
  await placeAt(ctx.db, groupsOf(spaceId), row!.id, orderToInt(input.order));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, row!.id);
}

export async function renameReglamentGroup(ctx: Ctx, spaceId: number, groupId: number, name: string): Promise<ReglamentGroupDto> {
  await authorizeGroup(ctx, spaceId, groupId);
  await ctx.db.update(reglamentGroups).set({ name: name.trim(), updatedAt: sql`now()` }).where(eq(reglamentGroups.id, groupId));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, groupId);
}

export async function moveReglamentGroup(ctx: Ctx, spaceId: number, groupId: number, order: number | string): Promise<ReglamentGroupDto> {
  await authorizeGroup(ctx, spaceId, groupId);
  await placeAt(ctx.db, groupsOf(spaceId), groupId, orderToInt(order));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, groupId);
}

/**
 * Deletes a group. Its reglaments must go somewhere: with `moveTo` they join the end of that group
 * in their order; without it a non-empty group stays (400 GROUP_NOT_EMPTY).
 */
export async function deleteReglamentGroup(ctx: Ctx, spaceId: number, groupId: number, moveTo: number | undefined): Promise<void> {
  await authorizeGroup(ctx, spaceId, groupId);
  const leaving = await lockOrder(ctx.db, placementsIn(groupId));
  if (leaving.length > 0) {
    if (moveTo === undefined) throw new AppError('GROUP_NOT_EMPTY', 'the group holds reglaments; move them first or pass moveTo');
    if (moveTo === groupId) throw new AppError('BAD_REQUEST', 'moveTo must be another group');
    const [target] = await ctx.db
      .select({ id: reglamentGroups.id })
      .from(reglamentGroups)
      .where(and(eq(reglamentGroups.id, moveTo), eq(reglamentGroups.spaceId, spaceId)));
    if (!target) throw new AppError('REFERENCE_NOT_FOUND', 'moveTo is not a reglament group of this space');
    const staying = await lockOrder(ctx.db, placementsIn(moveTo));
    await ctx.db.update(reglamentSpaces).set({ reglamentGroupId: moveTo }).where(and(eq(reglamentSpaces.reglamentGroupId, groupId), eq(reglamentSpaces.spaceId, spaceId)));
    await writeOrder(ctx.db, placementsIn(moveTo), [...staying, ...leaving]);
    for (const reglamentId of leaving) await recordEvent(ctx, reglamentId, 'moved', { spaceId, fromGroupId: groupId, toGroupId: moveTo });
  }
  await ctx.db.delete(reglamentGroups).where(eq(reglamentGroups.id, groupId));
  await compact(ctx.db, groupsOf(spaceId));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  // The moved reglaments changed group and position: each is announced, in its new place.
  for (const reglamentId of leaving) await announceReglament(ctx, 'reglament.updated', reglamentId);
}
