import { sql } from 'drizzle-orm';
import type { Ctx } from '../../platform/context.js';
import { authorizeUserReport, projectScope, readableScope, spaceScope } from './analytics.policy.js';
import { rangeOf } from './analytics.range.js';
import type { RangeQueryInput, TaskReportDto } from './analytics.schemas.js';
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
