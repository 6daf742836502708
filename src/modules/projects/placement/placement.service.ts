import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { projectGroups, projectSpaces } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { orderToInt } from '../../../platform/schemas.js';
import { authorizeProject, authorizeProjectInSpace } from '../projects.policy.js';
import { emit } from '../../../platform/events.js';
import { emitProject, loadProject, requireGroupInSpace } from '../projects.service.js';
import type { ProjectDto } from '../projects.schemas.js';
import { compactSlot, placeInSlot, slotsOf, type Entry, type Slot } from './placement.ordering.js';

/** The project's place in one space (its home unless `spaceId` names a space it is linked into). */
async function placementIn(db: Queryable, projectId: number, spaceId: number | undefined): Promise<Slot & { kind: Entry['kind'] }> {
  const slots = await slotsOf(db, projectId);
  const found = spaceId === undefined ? slots.find((s) => s.kind === 'home') : slots.find((s) => s.spaceId === spaceId);
  if (!found) throw new AppError('REFERENCE_NOT_FOUND', 'the project is not shown in this space');
  return found;
}

/** Moves the project within its group (or its ungrouped list) of one space; siblings are renumbered. */
export async function moveProject(ctx: Ctx, projectId: number, input: { order: number | string; spaceId?: number }): Promise<ProjectDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'update');
  const here = await placementIn(ctx.db, projectId, input.spaceId);
  await placeInSlot(ctx.db, here, { kind: here.kind, projectId }, orderToInt(input.order));
  const project = await loadProject(ctx.db, ctx.actor, projectId);
  emitProject(ctx, 'project.updated', project);
  return project;
}

/**
 * Moves the project into a group (null: out of any group). The group decides the space: one of the
 * home space moves the home placement, one of a linked space moves the placement there.
 */
export async function moveProjectToGroup(
  ctx: Ctx,
  projectId: number,
  input: { projectGroupId: number | null; order?: number | string; spaceId?: number },
): Promise<ProjectDto> {
  const { db, actor } = ctx;
  await authorizeProject(db, actor, projectId, 'update');
  let spaceId = input.spaceId;
  if (input.projectGroupId !== null) {
    const [group] = await db
      .select({ spaceId: projectGroups.spaceId })
      .from(projectGroups)
      .where(and(eq(projectGroups.id, input.projectGroupId), eq(projectGroups.organizationId, actor.organizationId)));
    if (!group || (spaceId !== undefined && spaceId !== group.spaceId)) throw new AppError('REFERENCE_NOT_FOUND', 'project group not found in this space');
    spaceId = group.spaceId;
  }
  const from = await placementIn(db, projectId, spaceId);
  const to: Slot = { spaceId: from.spaceId, groupId: input.projectGroupId };
  await placeInSlot(db, to, { kind: from.kind, projectId }, orderToInt(input.order));
  if (from.groupId !== to.groupId) await compactSlot(db, from);
  const project = await loadProject(db, actor, projectId);
  emitProject(ctx, 'project.updated', project);
  return project;
}

/** Shows the project in another space too; the caller must be an editor of the project and of that space. */
export async function linkProject(ctx: Ctx, projectId: number, input: { spaceId: number; projectGroupId?: number | null }): Promise<ProjectDto> {
  const { db, actor } = ctx;
  await authorizeProject(db, actor, projectId, 'link');
  await authorizeProjectInSpace(db, actor, input.spaceId, 'link');
  const slots = await slotsOf(db, projectId);
  if (slots.some((s) => s.spaceId === input.spaceId)) throw new AppError('CONFLICT', 'the project is already shown in this space');
  const groupId = input.projectGroupId ?? null;
  if (groupId !== null) await requireGroupInSpace(db, groupId, input.spaceId);
  await db.insert(projectSpaces).values({ organizationId: actor.organizationId, projectId, spaceId: input.spaceId, projectGroupId: groupId, order: 0 });
  await placeInSlot(db, { spaceId: input.spaceId, groupId }, { kind: 'link', projectId });
  const project = await loadProject(db, actor, projectId);
  // Addressed to the space it now shows in: that space's listing is what changed.
  emit(ctx, { type: 'project.linked', spaceId: input.spaceId, projectId, payload: project });
  return project;
}

/** Removes the project from a space it was linked into; its home space cannot be removed (delete the project instead). */
export async function unlinkProject(ctx: Ctx, projectId: number, spaceId: number): Promise<void> {
  const { db, actor } = ctx;
  await authorizeProject(db, actor, projectId, 'link');
  const here = (await slotsOf(db, projectId)).find((s) => s.spaceId === spaceId);
  if (!here) throw notFound('project link');
  if (here.kind === 'home') throw new AppError('BAD_REQUEST', "a project cannot leave its home space; delete the project instead");
  await db.delete(projectSpaces).where(and(eq(projectSpaces.projectId, projectId), eq(projectSpaces.spaceId, spaceId)));
  await compactSlot(db, here);
  emit(ctx, { type: 'project.unlinked', spaceId, projectId, payload: { id: projectId, spaceId } });
}
