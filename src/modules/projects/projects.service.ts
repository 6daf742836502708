import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import { projectGroups, projects, projectUserSettings, stages } from '../../db/schema/index.js';
import { readableSpaceIds } from '../../platform/access.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { presentStage } from '../stages/stages.presenter.js';
import { compactSlot, placeInSlot, slotsOf } from './placement/placement.ordering.js';
import { authorizeProject, authorizeProjectInSpace } from './projects.policy.js';
import { listTabs } from './tabs/tabs.service.js';
import { applyTemplate } from '../templates/templates.service.js';
import { presentProject, type ProjectRecord } from './projects.presenter.js';
import type { ListProjectsQueryDto, ProjectDto, ProjectFullDto } from './projects.schemas.js';

export interface ProjectFilter {
  projectId?: number;
  projectIds?: number[];
  /** A space's listing: projects at home there and linked into it, with their group and position there. */
  spaceId?: number;
  /** Only projects shown in one of these spaces (home or linked). */
  inSpaces?: number[];
  /** undefined: live and deleted alike (single reads); otherwise only the trash or only live projects. */
  deleted?: boolean;
  favorite?: boolean;
  limit?: number;
  offset?: number;
}

/** Projects with the caller's settings and linked spaces, one query for any number of them. */
export async function queryProjects(db: Queryable, actor: Actor, f: ProjectFilter): Promise<{ items: ProjectDto[]; total: number }> {
  const conditions: SQL[] = [sql`p.organization_id = ${actor.organizationId}`];
  if (f.projectId !== undefined) conditions.push(sql`p.id = ${f.projectId}`);
  if (f.projectIds !== undefined) conditions.push(sql`p.id = any(${idArray(f.projectIds)})`);
  if (f.spaceId !== undefined) conditions.push(sql`(p.space_id = ${f.spaceId} or here.space_id is not null)`);
  if (f.inSpaces !== undefined) {
    const ids = `{${f.inSpaces.join(',')}}`;
    conditions.push(sql`(p.space_id = any(${ids}::bigint[])
      or exists (select 1 from project_spaces l where l.project_id = p.id and l.space_id = any(${ids}::bigint[])))`);
  }
  if (f.deleted !== undefined) conditions.push(f.deleted ? sql`p.deleted_at is not null` : sql`p.deleted_at is null`);
  if (f.favorite !== undefined) conditions.push(sql`coalesce(us.favorite, false) = ${f.favorite}`);
  // In a space's listing a linked project shows where it sits in that space.
  const inHere = f.spaceId !== undefined ? sql`p.space_id <> ${f.spaceId}` : sql`false`;
  const rows = await queryRows<ProjectRecord & { total: number }>(
    db,
    sql`select p.id, p.space_id as "spaceId", p.name, p.description,
          case when ${inHere} then here.project_group_id else p.project_group_id end as "projectGroupId",
          case when ${inHere} then here."order" else p."order" end as "order",
          p.show_documentation_tab as "showDocumentationTab", p.show_timeline_tab as "showTimelineTab",
          p.show_calendar_tab as "showCalendarTab", p.deleted_at as "deletedAt", p.creator_id as "creatorId",
          p.created_at as "createdAt", p.updated_at as "updatedAt",
          coalesce((select array_agg(ps.space_id order by ps.space_id) from project_spaces ps where ps.project_id = p.id), '{}') as "linkedSpaceIds",
          us.favorite, us.timeline_scale as "timelineScale", us.timeline_grouping as "timelineGrouping",
          count(*) over ()::int as total
        from projects p
        left join project_spaces here on here.project_id = p.id and here.space_id = ${f.spaceId ?? null}::bigint
        left join project_user_settings us on us.project_id = p.id and us.user_id = ${actor.userId}
        left join project_groups g on g.id = case when ${inHere} then here.project_group_id else p.project_group_id end
        where ${sql.join(conditions, sql` and `)}
        order by ${f.spaceId === undefined ? sql`p.space_id,` : sql``} g."order" nulls first, g.id nulls first, "order", p.id
        limit ${f.limit ?? 500} offset ${f.offset ?? 0}`,
  );
  return { items: rows.map(presentProject), total: Number(rows[0]?.total ?? 0) };
}

export async function loadProject(db: Queryable, actor: Actor, projectId: number): Promise<ProjectDto> {
  const { items } = await queryProjects(db, actor, { projectId });
  if (!items[0]) throw notFound('project');
  return items[0];
}

export async function loadProjectFull(db: Queryable, actor: Actor, projectId: number): Promise<ProjectFullDto> {
  const project = await loadProject(db, actor, projectId);
  const columns = await db.select().from(stages).where(eq(stages.projectId, projectId)).orderBy(asc(stages.order), asc(stages.id));
  return { ...project, stages: columns.map(presentStage), tabs: await listTabs(db, projectId) };
}

/** The caller's readable projects across its spaces (the trash with `deleted`). */
export async function listProjects(ctx: Ctx, query: ListProjectsQueryDto & { limit: number; offset: number }) {
  const spaceIds = await readableSpaceIds(ctx.db, ctx.actor);
  if (spaceIds.length === 0) return { items: [], total: 0 };
  return queryProjects(ctx.db, ctx.actor, { inSpaces: spaceIds, deleted: query.deleted ?? false, favorite: query.favorite, limit: query.limit, offset: query.offset });
}

export async function listSpaceProjects(ctx: Ctx, spaceId: number, page: { limit: number; offset: number }) {
  await authorizeProjectInSpace(ctx.db, ctx.actor, spaceId, 'read');
  return queryProjects(ctx.db, ctx.actor, { spaceId, deleted: false, ...page });
}

/** A project group given in a request must belong to the space it is used in. */
export async function requireGroupInSpace(db: Queryable, groupId: number, spaceId: number): Promise<void> {
  const [g] = await db
    .select({ id: projectGroups.id })
    .from(projectGroups)
    .where(and(eq(projectGroups.id, groupId), eq(projectGroups.spaceId, spaceId)));
  if (!g) throw new AppError('REFERENCE_NOT_FOUND', 'project group not found in this space');
}

/**
 * Creates a project, filled from a template or by `fill` (a duplicate's columns and tasks) before
 * project.created goes out, so that event carries the project as it is when the transaction commits.
 */
export async function createProject(
  ctx: Ctx,
  input: { spaceId: number; name: string; projectGroupId?: number | null; templateId?: number; description?: string | null },
  fill?: (project: { id: number; spaceId: number; name: string }) => Promise<void>,
): Promise<ProjectFullDto> {
  const { db, actor } = ctx;
  await authorizeProjectInSpace(db, actor, input.spaceId, 'create');
  const groupId = input.projectGroupId ?? null;
  if (groupId !== null) await requireGroupInSpace(db, groupId, input.spaceId);
  const [row] = await db
    .insert(projects)
    .values({
      organizationId: actor.organizationId,
      spaceId: input.spaceId,
      projectGroupId: groupId,
      name: input.name.trim(),
      description: input.description ?? null,
      order: 0,
      creatorId: actor.userId,
    })
    .returning({ id: projects.id });
  await placeInSlot(db, { spaceId: input.spaceId, groupId }, { kind: 'home', projectId: row!.id });
  const created = { id: row!.id, spaceId: input.spaceId, name: input.name.trim() };
  if (input.templateId !== undefined) await applyTemplate(ctx, input.templateId, created);
  if (fill) await fill(created);
  const project = await loadProjectFull(db, actor, row!.id);
  emitProject(ctx, 'project.created', project);
  return project;
}

export async function getProject(ctx: Ctx, projectId: number): Promise<ProjectFullDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'read');
  return loadProjectFull(ctx.db, ctx.actor, projectId);
}

/** A project event, addressed to the project and its home space. */
export function emitProject(ctx: Ctx, type: 'project.created' | 'project.updated' | 'project.restored', project: ProjectDto): void {
  emit(ctx, { type, spaceId: project.spaceId, projectId: project.id, payload: project });
}

type ProjectPatch = Partial<Pick<typeof projects.$inferInsert, 'name' | 'description' | 'showDocumentationTab' | 'showTimelineTab' | 'showCalendarTab'>>;

/** One-property changes (name, description, tab flags): editors only. */
export async function updateProject(ctx: Ctx, projectId: number, patch: ProjectPatch): Promise<ProjectDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'update');
  const values = patch.name === undefined ? patch : { ...patch, name: patch.name.trim() };
  await ctx.db
    .update(projects)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(projects.id, projectId), eq(projects.organizationId, ctx.actor.organizationId)));
  const project = await loadProject(ctx.db, ctx.actor, projectId);
  emitProject(ctx, 'project.updated', project);
  return project;
}

export type PersonalSettings = Partial<Pick<typeof projectUserSettings.$inferInsert, 'favorite' | 'timelineScale' | 'timelineGrouping'>>;

/**
 * The caller's own favourite flag and timeline view (zoom, swimlanes): readers may keep them too,
 * and nobody else sees them, so they announce nothing.
 */
export async function setPersonalSettings(ctx: Ctx, projectId: number, values: PersonalSettings): Promise<ProjectDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'personalize');
  await ctx.db
    .insert(projectUserSettings)
    .values({ organizationId: ctx.actor.organizationId, projectId, userId: ctx.actor.userId, ...values })
    .onConflictDoUpdate({ target: [projectUserSettings.projectId, projectUserSettings.userId], set: values });
  return loadProject(ctx.db, ctx.actor, projectId);
}

/** Soft delete: the project leaves every list and its board answers 404 until restored. */
export async function deleteProject(ctx: Ctx, projectId: number): Promise<void> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'delete');
  const [gone] = await ctx.db
    .update(projects)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(projects.id, projectId), eq(projects.organizationId, ctx.actor.organizationId)))
    .returning({ spaceId: projects.spaceId });
  emit(ctx, { type: 'project.deleted', spaceId: gone!.spaceId, projectId, payload: { id: projectId } });
  for (const slot of await slotsOf(ctx.db, projectId)) await compactSlot(ctx.db, slot);
}

/** Brings a project back from the trash, at the end of each group it sat in. Restoring a live project changes nothing. */
export async function restoreProject(ctx: Ctx, projectId: number): Promise<ProjectFullDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'restore');
  const restored = await ctx.db
    .update(projects)
    .set({ deletedAt: null, updatedAt: sql`now()` })
    .where(and(eq(projects.id, projectId), eq(projects.organizationId, ctx.actor.organizationId), sql`${projects.deletedAt} is not null`))
    .returning({ id: projects.id });
  if (restored.length > 0) {
    for (const slot of await slotsOf(ctx.db, projectId)) await placeInSlot(ctx.db, slot, { kind: slot.kind, projectId });
  }
  const project = await loadProjectFull(ctx.db, ctx.actor, projectId);
  if (restored.length > 0) emitProject(ctx, 'project.restored', project);
  return project;
}
