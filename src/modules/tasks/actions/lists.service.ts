import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { presentHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { authorizeProjectTasks } from '../tasks.policy.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { authorizeUserHistory, readableTaskIds, readableTasksCondition, requireOrganizationUser } from './actions.policy.js';
import { TASK_PAGE, type CountsDto, type HistoryQueryDto, type TaskFilterQuery } from './actions.schemas.js';
import { assignedTo, dateRange, inProject, inSpace, participating, statusIn, today, within } from '../filters.js';

export interface Page<T> {
  items: T[];
  total: number;
}

type Paging = { limit?: number; offset?: number };

/**
 * One page of tasks the caller can read, not archived, matching `where`: one query picks the ids
 * and the total, the presenter loads the forms with its fixed set of queries.
 */
async function pageOfTasks(ctx: Ctx, where: SQL[], order: SQL, q: Paging): Promise<Page<TaskDto>> {
  const { db, actor } = ctx;
  const readable = await readableTasksCondition(db, actor);
  const from = sql`from tasks t where t.organization_id = ${actor.organizationId} and t.archived_at is null and ${readable}
    ${where.length ? sql`and ${sql.join(where, sql` and `)}` : sql``}`;
  const limit = q.limit ?? TASK_PAGE;
  const offset = q.offset ?? 0;
  const rows = await queryRows<{ id: number; total: number }>(db, sql`select t.id, count(*) over ()::int as total ${from} order by ${order} limit ${limit} offset ${offset}`);
  let total = rows[0] ? Number(rows[0].total) : 0;
  // Past the end no row carries the total; count apart so X-Total-Count stays true.
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(db, sql`select count(*)::int as n ${from}`))[0]?.n ?? 0);
  const records = await loadTaskRecords(db, actor.organizationId, rows.map((r) => Number(r.id)));
  return { items: records.map(presentTask), total };
}

const NEWEST = sql`t.created_at desc, t.id desc`;
const LAST_CLOSED = sql`t.date_status_changed desc, t.id desc`;

/** GET /tasks: every task of the organization the caller can read, filtered. */
export function listOrganizationTasks(ctx: Ctx, q: TaskFilterQuery): Promise<Page<TaskDto>> {
  const where = [...statusIn(q.statuses), ...dateRange(sql`t.date_end`, q.dateFrom, q.dateTo)];
  if (q.responsibleId !== undefined) where.push(assignedTo(q.responsibleId));
  if (q.spaceId !== undefined) where.push(inSpace(q.spaceId));
  if (q.projectId !== undefined) where.push(inProject(q.projectId));
  return pageOfTasks(ctx, where, NEWEST, q);
}

/** GET /users/{userId}/tasks: the user's assigned tasks, as far as the caller can read them. */
export async function listAssigneeTasks(ctx: Ctx, userId: number, q: TaskFilterQuery): Promise<Page<TaskDto>> {
  await requireOrganizationUser(ctx.db, ctx.actor, userId);
  return pageOfTasks(ctx, [assignedTo(userId), ...statusIn(q.statuses), ...dateRange(sql`t.date_end`, q.dateFrom, q.dateTo)], NEWEST, q);
}

export function listCreatedTasks(ctx: Ctx, q: TaskFilterQuery): Promise<Page<TaskDto>> {
  return pageOfTasks(ctx, [sql`t.creator_id = ${ctx.actor.userId}`, ...statusIn(q.statuses)], NEWEST, q);
}

export function listParticipatingTasks(ctx: Ctx, q: TaskFilterQuery): Promise<Page<TaskDto>> {
  return pageOfTasks(ctx, [participating(ctx.actor.userId), ...statusIn(q.statuses)], NEWEST, q);
}

const finishedToday = (tz: string | undefined): SQL[] => [sql`t.status = 1`, within(sql`t.date_status_changed`, today(tz))];

/** GET /projects/{projectId}/tasks/finished-today: done today (in tz) on the project's board. */
export async function listProjectFinishedToday(ctx: Ctx, projectId: number, q: Paging & { tz?: string }): Promise<Page<TaskDto>> {
  const where = [...finishedToday(q.tz), inProject(projectId)];
  await authorizeProjectTasks(ctx.db, ctx.actor, projectId);
  return pageOfTasks(ctx, where, LAST_CLOSED, q);
}

/** GET /users/{userId}/tasks/finished-today: the user's assigned tasks done today (in tz). */
export async function listAssigneeFinishedToday(ctx: Ctx, userId: number, q: Paging & { tz?: string }): Promise<Page<TaskDto>> {
  const where = [...finishedToday(q.tz), assignedTo(userId)];
  await requireOrganizationUser(ctx.db, ctx.actor, userId);
  return pageOfTasks(ctx, where, LAST_CLOSED, q);
}

/**
 * GET /user/tasks/counts: the home page's numbers in one query over the tasks the caller created
 * or takes part in (readable, not archived). Definitions are in CountsSchema.
 */
export async function countMyTasks(ctx: Ctx, tz: string | undefined): Promise<CountsDto> {
  const { db, actor } = ctx;
  const day = today(tz);
  const me = actor.userId;
  const readable = await readableTasksCondition(db, actor);
  const [row] = await queryRows<Record<keyof CountsDto, number>>(
    db,
    sql`with mine as (
          select t.status in (0, 3) as open, t.status, t.creator_id = ${me} as created, t.date_status_changed,
            t.date_end, t.date_end_without_time,
            exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${me}) as assigned,
            exists (select 1 from task_members m where m.task_id = t.id and m.user_id = ${me}) as member,
            exists (select 1 from task_inspectors i where i.task_id = t.id and i.user_id = ${me}) as inspector,
            exists (select 1 from task_inspectors i where i.task_id = t.id and i.user_id = ${me} and i.status = 0) as waiting
          from tasks t
          where t.organization_id = ${actor.organizationId} and t.archived_at is null
            and (t.creator_id = ${me} or ${participating(me)}) and ${readable})
        select
          count(*) filter (where assigned and open)::int as assigned,
          count(*) filter (where assigned and open and (date_end < now()
            or (date_end is null and date_end_without_time < ${day.date}::date)))::int as overdue,
          count(*) filter (where assigned and open and ((${within(sql`date_end`, day)})
            or (date_end is null and date_end_without_time = ${day.date}::date)))::int as "dueToday",
          count(*) filter (where status = 3 and (assigned or member or inspector))::int as "needsAttention",
          count(*) filter (where waiting and open)::int as inspecting,
          count(*) filter (where created and open)::int as created,
          count(*) filter (where open and (assigned or member or inspector))::int as participating,
          count(*) filter (where assigned and status = 1 and ${within(sql`date_status_changed`, day)})::int as "finishedToday"
        from mine`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)])) as CountsDto;
}

/**
 * GET /users/{userId}/task-history: what the user did to tasks, newest first, only on tasks the
 * caller can read now (their history goes with them).
 */
export async function listUserHistory(ctx: Ctx, userId: number, q: HistoryQueryDto): Promise<Page<HistoryDto>> {
  const { db, actor } = ctx;
  await authorizeUserHistory(db, actor, userId);
  const readable = await readableTasksCondition(db, actor);
  const where = [sql`h.organization_id = ${actor.organizationId}`, sql`h.user_id = ${userId}`, ...dateRange(sql`h.update_date`, q.dateFrom, q.dateTo)];
  const from = sql`from task_history h join tasks t on t.id = h.task_id where ${sql.join(where, sql` and `)} and ${readable}`;
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const rows = await queryRows<Parameters<typeof presentHistory>[0] & { total: number }>(
    db,
    sql`select h.id, h.update_date as "updateDate", h.task_id as "taskId", h.user_id as "userId", h.state, h.type,
          h.project_name as "projectName", h.commit_name as "commitName", h.commit_link as "commitLink", h.task_name as "taskName",
          count(*) over ()::int as total
        ${from} order by h.update_date desc, h.id desc limit ${limit} offset ${offset}`,
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(db, sql`select count(*)::int as n ${from}`))[0]?.n ?? 0);
  return { items: rows.map(presentHistory), total };
}

/** POST /tasks/by-ids: the readable ones among `ids`, in the order given, each once. */
export async function getTasksByIds(ctx: Ctx, ids: number[]): Promise<TaskDto[]> {
  const unique = [...new Set(ids)];
  const readable = await readableTaskIds(ctx.db, ctx.actor, unique);
  const records = await loadTaskRecords(ctx.db, ctx.actor.organizationId, unique.filter((id) => readable.has(id)));
  return records.map(presentTask);
}
