import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { projectGroups, projects, stages } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { placeAt } from '../../platform/ordering.js';
import { presentStage } from '../stages/stages.presenter.js';
import { authorizeProject, authorizeProjectInSpace } from './projects.policy.js';
import { presentProject, type ProjectRecord } from './projects.presenter.js';
import type { ProjectDto, ProjectFullDto } from './projects.schemas.js';

/** Projects with the caller's settings and linked spaces, in one query. */
export async function queryProjects(db: Queryable, actor: Actor, where: ReturnType<typeof sql>): Promise<ProjectDto[]> {
  const rows = await queryRows<ProjectRecord>(
    db,
    sql`select p.id, p.space_id as "spaceId", p.project_group_id as "projectGroupId", p.name, p.description, p."order",
          p.show_documentation_tab as "showDocumentationTab", p.show_timeline_tab as "showTimelineTab",
          p.show_calendar_tab as "showCalendarTab", p.deleted_at as "deletedAt", p.creator_id as "creatorId",
          p.created_at as "createdAt", p.updated_at as "updatedAt",
          coalesce((select array_agg(ps.space_id order by ps.space_id) from project_spaces ps where ps.project_id = p.id), '{}') as "linkedSpaceIds",
          us.favorite, us.timeline_scale as "timelineScale", us.timeline_grouping as "timelineGrouping"
        from projects p
        left join project_user_settings us on us.project_id = p.id and us.user_id = ${actor.userId}
        where p.organization_id = ${actor.organizationId} and ${where}
        order by p."order", p.id`,
  );
  return rows.map(presentProject);
}

export async function loadProjectFull(db: Queryable, actor: Actor, projectId: number): Promise<ProjectFullDto> {
  const [project] = await queryProjects(db, actor, sql`p.id = ${projectId}`);
  if (!project) throw notFound('project');
  const columns = await db.select().from(stages).where(eq(stages.projectId, projectId)).orderBy(asc(stages.order), asc(stages.id));
  // Custom tabs arrive with their module; until then a project has none.
  return { ...project, stages: columns.map(presentStage), tabs: [] };
}

export async function createProject(
  ctx: Ctx,
  input: { spaceId: number; name: string; projectGroupId?: number | null; description?: string | null },
): Promise<ProjectFullDto> {
  const { db, actor } = ctx;
  await authorizeProjectInSpace(db, actor, input.spaceId, 'create');
  if (input.projectGroupId) {
    const [g] = await db
      .select({ id: projectGroups.id })
      .from(projectGroups)
      .where(and(eq(projectGroups.id, input.projectGroupId), eq(projectGroups.spaceId, input.spaceId)));
    if (!g) throw new AppError('REFERENCE_NOT_FOUND', 'project group not found in this space');
  }
  const [row] = await db
    .insert(projects)
    .values({
      organizationId: actor.organizationId,
      spaceId: input.spaceId,
      projectGroupId: input.projectGroupId ?? null,
      name: input.name.trim(),
      description: input.description ?? null,
      order: 0,
      creatorId: actor.userId,
    })
    .returning({ id: projects.id });
  await placeAt(db, { table: 'projects', key: 'id', where: sql`space_id = ${input.spaceId} and deleted_at is null` }, row!.id, undefined);
  return loadProjectFull(db, actor, row!.id);
}

export async function getProject(ctx: Ctx, projectId: number): Promise<ProjectFullDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'read');
  return loadProjectFull(ctx.db, ctx.actor, projectId);
}
