import { and, eq, sql } from 'drizzle-orm';
import { projectGroups } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { compact, placeAt, type OrderedScope } from '../../../platform/ordering.js';
import { orderToInt } from '../../../platform/schemas.js';
import { emitSpaceFull } from '../../spaces/spaces.events.js';
import { lockSlot, writeSlot } from '../placement/placement.ordering.js';
import { authorizeProjectInSpace } from '../projects.policy.js';
import { emitProject, queryProjects } from '../projects.service.js';
import { presentProjectGroup } from './groups.presenter.js';
import type { ProjectGroupDto } from './groups.schemas.js';

const groupsOf = (spaceId: number): OrderedScope => ({ table: 'project_groups', key: 'id', where: sql`space_id = ${spaceId}` });

/** Serializes group reordering per space: row locks alone miss a group a concurrent transaction inserts. */
const lockSpace = (ctx: Ctx, spaceId: number) => ctx.db.execute(sql`select id from spaces where id = ${spaceId} for no key update`);

/** Authorizes on the space, then finds the group in it (404 when it is not there). */
async function authorizeGroup(ctx: Ctx, spaceId: number, groupId: number) {
  await authorizeProjectInSpace(ctx.db, ctx.actor, spaceId, 'manageGroups');
  const [group] = await ctx.db
    .select()
    .from(projectGroups)
    .where(and(eq(projectGroups.id, groupId), eq(projectGroups.spaceId, spaceId), eq(projectGroups.organizationId, ctx.actor.organizationId)));
  if (!group) throw notFound('project group');
}

async function loadGroup(ctx: Ctx, groupId: number): Promise<ProjectGroupDto> {
  const [group] = await ctx.db.select().from(projectGroups).where(eq(projectGroups.id, groupId));
  if (!group) throw notFound('project group');
  return presentProjectGroup(group);
}

export async function createProjectGroup(ctx: Ctx, spaceId: number, input: { name: string; order?: number | string }): Promise<ProjectGroupDto> {
  await authorizeProjectInSpace(ctx.db, ctx.actor, spaceId, 'manageGroups');
  await lockSpace(ctx, spaceId);
  const [row] = await ctx.db
    .insert(projectGroups)
    .values({ organizationId: ctx.actor.organizationId, spaceId, name: input.name.trim(), order: 0 })
    .returning({ id: projectGroups.id });
  await placeAt(ctx.db, groupsOf(spaceId), row!.id, orderToInt(input.order));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, row!.id);
}

export async function renameProjectGroup(ctx: Ctx, spaceId: number, groupId: number, name: string): Promise<ProjectGroupDto> {
  await authorizeGroup(ctx, spaceId, groupId);
  await ctx.db.update(projectGroups).set({ name: name.trim(), updatedAt: sql`now()` }).where(eq(projectGroups.id, groupId));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, groupId);
}

export async function moveProjectGroup(ctx: Ctx, spaceId: number, groupId: number, order: number | string): Promise<ProjectGroupDto> {
  await authorizeGroup(ctx, spaceId, groupId);
  await lockSpace(ctx, spaceId);
  await placeAt(ctx.db, groupsOf(spaceId), groupId, orderToInt(order));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, groupId);
}

/** Deletes a group; its projects (home and linked) join the end of the space's ungrouped list in their order. */
export async function deleteProjectGroup(ctx: Ctx, spaceId: number, groupId: number): Promise<void> {
  await authorizeGroup(ctx, spaceId, groupId);
  const ungrouped = { spaceId, groupId: null };
  const staying = await lockSlot(ctx.db, ungrouped);
  const leaving = await lockSlot(ctx.db, { spaceId, groupId });
  await writeSlot(ctx.db, ungrouped, [...staying, ...leaving]);
  // Projects in the trash keep no position; the foreign key ungroups them (ON DELETE SET NULL).
  await ctx.db.delete(projectGroups).where(eq(projectGroups.id, groupId));
  await compact(ctx.db, groupsOf(spaceId));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  // Projects at home here changed group and position (a linked one's Project form does not show them).
  const homes = leaving.filter((e) => e.kind === 'home').map((e) => e.projectId);
  if (homes.length === 0) return;
  for (const project of (await queryProjects(ctx.db, ctx.actor, { projectIds: homes })).items) emitProject(ctx, 'project.updated', project);
}
