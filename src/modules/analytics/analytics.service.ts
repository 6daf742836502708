import type { Ctx } from '../../platform/context.js';
import { loadTaskRecords, presentTask } from '../tasks/tasks.presenter.js';
import { authorizeMemberReport, authorizeUserReport, projectScope, readableScope, spaceScope, type Scope } from './analytics.policy.js';
import { drainOrganization } from './analytics.queue.js';
import { judgedAt, rangeOf } from './analytics.range.js';
import type { DrillDownInput, ProjectReportDto, RangeQueryInput, SeriesQueryInput, SpaceAnalyticsDto, TaskReportDto } from './analytics.schemas.js';
import { memberReport } from './member-report.service.js';
import { projectReport, taskIdsBehind, type Metric } from './project-report.service.js';
import { projectFlow, projectsBreakdown, taskSeries, type SeriesPointRow } from './series.service.js';
import { taskReport } from './task-report.service.js';

/**
 * Use cases of the analytics routes: authorize and scope first, apply the organization's queued
 * writes (`settled`), then one reporting statement.
 */

/**
 * The scope once authorized, with every write the organization committed so far in the rollups: a
 * report right after a write counts it. After authorization, so a refused request changes nothing.
 */
async function settled(ctx: Ctx, scope: Scope | Promise<Scope>): Promise<Scope> {
  const s = await scope;
  await drainOrganization(ctx.db, s.organizationId);
  return s;
}

export async function projectTaskReport(ctx: Ctx, projectId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  return taskReport(ctx.db, await settled(ctx, projectScope(ctx.db, ctx.actor, projectId)), rangeOf(q), q.archived ?? false);
}

export async function spaceTaskReport(ctx: Ctx, spaceId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  return taskReport(ctx.db, await settled(ctx, spaceScope(ctx.db, ctx.actor, spaceId)), rangeOf(q), q.archived ?? false);
}

/** The tasks assigned to the user, among those the caller can read. */
async function userScope(ctx: Ctx, userId: number): Promise<Scope> {
  await authorizeUserReport(ctx.db, ctx.actor, userId);
  return settled(ctx, { ...(await readableScope(ctx.db, ctx.actor)), assignee: userId });
}

export async function userTaskReport(ctx: Ctx, userId: number, q: RangeQueryInput): Promise<TaskReportDto> {
  return taskReport(ctx.db, await userScope(ctx, userId), rangeOf(q), q.archived ?? false);
}

export async function userTaskSeries(ctx: Ctx, userId: number, q: SeriesQueryInput): Promise<SeriesPointRow[]> {
  return taskSeries(ctx.db, await userScope(ctx, userId), rangeOf(q), q.interval ?? 'week');
}

export async function spaceAnalytics(ctx: Ctx, spaceId: number, q: SeriesQueryInput): Promise<SpaceAnalyticsDto> {
  const scope = await settled(ctx, spaceScope(ctx.db, ctx.actor, spaceId));
  const r = rangeOf(q);
  return {
    points: await taskSeries(ctx.db, scope, r, q.interval ?? 'week'),
    byProject: await projectsBreakdown(ctx.db, scope, r, judgedAt(r)),
  };
}

/** The tasks behind a number of a space's analytics or a project's report, as task lists present them. */
async function drillDown(ctx: Ctx, scope: Scope, q: DrillDownInput, page: { limit: number; offset: number }) {
  const { ids, total } = await taskIdsBehind(ctx.db, scope, rangeOf(q), q.metric as Metric, q, page);
  const records = await loadTaskRecords(ctx.db, ctx.actor.organizationId, ids);
  return { items: records.map(presentTask), total };
}

export async function spaceTasks(ctx: Ctx, spaceId: number, q: DrillDownInput, page: { limit: number; offset: number }) {
  return drillDown(ctx, await settled(ctx, spaceScope(ctx.db, ctx.actor, spaceId)), q, page);
}

export async function projectReportOf(ctx: Ctx, projectId: number, q: RangeQueryInput): Promise<ProjectReportDto> {
  return projectReport(ctx.db, await settled(ctx, projectScope(ctx.db, ctx.actor, projectId)), projectId, rangeOf(q));
}

export async function reportTasks(ctx: Ctx, projectId: number, q: DrillDownInput, page: { limit: number; offset: number }) {
  return drillDown(ctx, await settled(ctx, projectScope(ctx.db, ctx.actor, projectId)), q, page);
}

export async function flowOf(ctx: Ctx, projectId: number, q: SeriesQueryInput) {
  await settled(ctx, projectScope(ctx.db, ctx.actor, projectId));
  return projectFlow(ctx.db, ctx.actor.organizationId, projectId, rangeOf(q), q.interval ?? 'week');
}

/** Members with their numbers over the tasks the caller can read (of one space when asked). */
export async function membersReport(ctx: Ctx, q: RangeQueryInput & { spaceId?: number }, page: { limit: number; offset: number }) {
  authorizeMemberReport(ctx.actor);
  const scope = await settled(ctx, q.spaceId ? spaceScope(ctx.db, ctx.actor, q.spaceId) : readableScope(ctx.db, ctx.actor));
  return memberReport(ctx.db, scope, rangeOf(q), page);
}
