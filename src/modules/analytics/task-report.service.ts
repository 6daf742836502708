import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { TaskReportDto } from './analytics.schemas.js';

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const DEADLINE = sql`coalesce(t.date_end, (t.date_end_without_time + 1)::timestamp at time zone 'UTC')`;

/**
 * Overdue at `at`, as a condition on `tasks t`: created and deadline before, and not done or rejected
 * then. Judged now (a range that has not ended), the status then is the row's own, so no probe of the
 * status history per task is needed; a past moment needs that probe.
 */
function overdueCondition(at: Date): SQL {
  const m = iso(at);
  const base = sql`t.created_at < ${m} and ${DEADLINE} < ${m}`;
  if (at.getTime() >= Date.now() - 1000) return sql`(${base} and t.status not in (1, 2))`;
  return sql`(${base} and coalesce((select c.status from task_status_changes c where c.task_id = t.id and c.at < ${m}
                  order by c.at desc, c.id desc limit 1), 0) not in (1, 2))`;
}

/**
 * The tasks a report counts (`scope`: a condition on `tasks t`) with the columns every report needs:
 * the deadline is `dateEnd`, or the end of `dateEndWithoutTime`'s UTC day; `od` tells whether the
 * task is overdue at `overdueAt` (judged once per task, however many numbers use it).
 */
export const scopedTasks = (organizationId: number, scope: SQL, archived: boolean, overdueAt?: Date) => sql`
  select t.id, t.status, t.plan_time, t.created_at, ${DEADLINE} as deadline,
    ${overdueAt ? overdueCondition(overdueAt) : sql`false`} as od
  from tasks t
  where t.organization_id = ${organizationId} and ${scope} ${archived ? sql`` : sql`and t.archived_at is null`}`;

/** Tasks of `scope` set to `status` (1 done, 2 rejected) in range, with the last such time. */
export const closedInRange = (status: 1 | 2, r: Range) => sql`
  select c.task_id as id, max(c.at) as at from task_status_changes c join scope s on s.id = c.task_id
  where c.status = ${status} and c.at >= ${iso(r.from)} and c.at < ${iso(r.to)}
  group by c.task_id`;

/** Hours of time records dated in range on tasks of `scope`. */
export const recordsInRange = (r: Range) => sql`
  select tr.task_id, tr.user_id, tr.hours from time_records tr join scope s on s.id = tr.task_id
  where (tr.date::timestamp at time zone 'UTC') >= ${iso(r.from)} and (tr.date::timestamp at time zone 'UTC') < ${iso(r.to)}`;

/**
 * The TaskReport numbers in one pass over the scope (every snapshot number is a filtered count of
 * the same rows) plus one join each for assignees, status changes and time records.
 */
export const taskReportCtes = (organizationId: number, scope: SQL, r: Range, archived: boolean) => sql`
  scope as materialized (${scopedTasks(organizationId, scope, archived, judgedAt(r))}),
  totals as (
    select count(*) as total, count(*) filter (where status = 0) as s0, count(*) filter (where status = 1) as s1,
      count(*) filter (where status = 2) as s2, count(*) filter (where status = 3) as s3, count(*) filter (where od) as overdue,
      count(*) filter (where created_at >= ${iso(r.from)} and created_at < ${iso(r.to)}) as created,
      coalesce(sum(plan_time), 0) as plan_time
    from scope),
  finished as (${closedInRange(1, r)}),
  records as (select user_id, sum(hours) as hours from (${recordsInRange(r)}) x group by user_id),
  assignees as (
    select a.user_id, count(*) as total, count(*) filter (where s.status = 1) as done, count(*) filter (where s.od) as overdue,
      coalesce(sum(s.plan_time), 0) as plan_time
    from task_assignees a join scope s on s.id = a.task_id group by a.user_id)`;

/** The TaskReport object, from the CTEs of `taskReportCtes` (one row of `totals t`). */
export const taskReportObject = sql`jsonb_build_object(
    'total', t.total,
    'byStatus', jsonb_build_array(jsonb_build_object('status', 0, 'count', t.s0), jsonb_build_object('status', 1, 'count', t.s1),
      jsonb_build_object('status', 2, 'count', t.s2), jsonb_build_object('status', 3, 'count', t.s3)),
    'overdue', t.overdue,
    'created', t.created,
    'finished', (select count(*) from finished),
    'planTime', t.plan_time,
    'factTime', (select coalesce(sum(hours), 0) from records),
    'byAssignee', coalesce((select jsonb_agg(jsonb_build_object(
        'userId', a.user_id, 'total', a.total, 'done', a.done, 'overdue', a.overdue, 'planTime', a.plan_time,
        'factTime', coalesce((select rc.hours from records rc where rc.user_id = a.user_id), 0)) order by a.user_id)
      from assignees a), '[]'::jsonb))`;

export async function taskReport(db: Queryable, organizationId: number, scope: SQL, r: Range, archived: boolean): Promise<TaskReportDto> {
  const rows = await queryRows<{ report: TaskReportDto }>(
    db,
    sql`with ${taskReportCtes(organizationId, scope, r, archived)} select ${taskReportObject} as report from totals t`,
  );
  return rows[0]!.report;
}
