import { sql, type SQL } from 'drizzle-orm';
import type { Ctx } from '../../platform/context.js';
import { loadTaskRecords, presentTask } from '../tasks/tasks.presenter.js';
import { authorizeMemberReport, authorizeUserReport, projectScope, readableScope, spaceProjects, spaceScope } from './analytics.policy.js';
import { judgedAt, rangeOf } from './analytics.range.js';
import type { DrillDownInput, ProjectReportDto, RangeQueryInput, SeriesQueryInput, SpaceAnalyticsDto, TaskReportDto } from './analytics.schemas.js';
import { memberReport } from './member-report.service.js';
import { projectReport, taskIdsBehind, type Metric } from './project-report.service.js';
import { projectFlow, projectsBreakdown, taskSeries, type SeriesPointRow } from './series.service.js';
import { taskReport } from './task-report.service.js';

/** Use cases of the analytics routes: authorize and scope first, then one reporting statement. */

export async function projectTaskReport(ctx: Ctx, projectId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  const scope = await projectScope(ctx.db, ctx.actor, projectId);
  return taskReport(ctx.db, ctx.actor.organizationId, scope, rangeOf(q), q.archived ?? false);
}

export async function spaceTaskReport(ctx: Ctx, spaceId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  const scope = await spaceScope(ctx.db, ctx.actor, spaceId);
  return taskReport(ctx.db, ctx.actor.organizationId, scope, rangeOf(q), q.archived ?? false);
}

/** The tasks assigned to the user, among those the caller can read. */
export async function userTaskReport(ctx: Ctx, userId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  await authorizeUserReport(ctx.db, ctx.actor, userId);
  const readable = await readableScope(ctx.db, ctx.actor);
  const scope = sql`${readable} and t.id in (select ua.task_id from task_assignees ua where ua.user_id = ${userId})`;
  return taskReport(ctx.db, ctx.actor.organizationId, scope, rangeOf(q), q.archived ?? false);
}

export async function userTaskSeries(ctx: Ctx, userId: number, q: SeriesQueryInput): Promise<SeriesPointRow[]> {
  await authorizeUserReport(ctx.db, ctx.actor, userId);
  const readable = await readableScope(ctx.db, ctx.actor);
  const scope = sql`${readable} and t.id in (select ua.task_id from task_assignees ua where ua.user_id = ${userId})`;
  return taskSeries(ctx.db, ctx.actor.organizationId, scope, rangeOf(q), q.interval ?? 'week');
}

export async function spaceAnalytics(ctx: Ctx, spaceId: number, q: SeriesQueryInput): Promise<SpaceAnalyticsDto> {
  const scope = await spaceScope(ctx.db, ctx.actor, spaceId);
  const r = rangeOf(q);
  return {
    points: await taskSeries(ctx.db, ctx.actor.organizationId, scope, r, q.interval ?? 'week'),
    byProject: await projectsBreakdown(ctx.db, ctx.actor.organizationId, scope, spaceProjects(spaceId), judgedAt(r)),
  };
}

/** The tasks behind a number of a space's analytics or a project's report, as task lists present them. */
async function drillDown(ctx: Ctx, scope: SQL, q: DrillDownInput, page: { limit: number; offset: number }) {
  const filters = [
    scope,
    ...(q.projectId ? [sql`t.id in (select task_id from task_stages where project_id = ${q.projectId})`] : []),
    ...(q.stageId ? [sql`t.id in (select task_id from task_stages where stage_id = ${q.stageId})`] : []),
    ...(q.responsibleId ? [sql`t.id in (select task_id from task_assignees where user_id = ${q.responsibleId})`] : []),
  ];
  const { ids, total } = await taskIdsBehind(ctx.db, ctx.actor.organizationId, sql.join(filters, sql` and `), rangeOf(q), q.metric as Metric, page);
  const records = await loadTaskRecords(ctx.db, ctx.actor.organizationId, ids);
  return { items: records.map(presentTask), total };
}

export async function spaceTasks(ctx: Ctx, spaceId: number, q: DrillDownInput, page: { limit: number; offset: number }) {
  return drillDown(ctx, await spaceScope(ctx.db, ctx.actor, spaceId), q, page);
}

export async function projectReportOf(ctx: Ctx, projectId: number, q: RangeQueryInput): Promise<ProjectReportDto> {
  const scope = await projectScope(ctx.db, ctx.actor, projectId);
  return projectReport(ctx.db, ctx.actor.organizationId, projectId, scope, rangeOf(q));
}

export async function reportTasks(ctx: Ctx, projectId: number, q: DrillDownInput, page: { limit: number; offset: number }) {
  return drillDown(ctx, await projectScope(ctx.db, ctx.actor, projectId), q, page);
}

export async function flowOf(ctx: Ctx, projectId: number, q: SeriesQueryInput) {
  await projectScope(ctx.db, ctx.actor, projectId);
  return projectFlow(ctx.db, projectId, rangeOf(q), q.interval ?? 'week');
}

/** Members with their numbers over the tasks the caller can read (of one space when asked). */
export async function membersReport(ctx: Ctx, q: RangeQueryInput & { spaceId?: number }, page: { limit: number; offset: number }) {
  authorizeMemberReport(ctx.actor);
  const scope = q.spaceId ? await spaceScope(ctx.db, ctx.actor, q.spaceId) : sql`true`;
  return memberReport(ctx.db, ctx.actor.organizationId, scope, rangeOf(q), page);
}
