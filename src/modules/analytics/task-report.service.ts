import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { TaskReportDto } from './analytics.schemas.js';

/**
 * The tasks a report counts (`scope`: a condition on `tasks t`) with the columns every report needs:
 * the deadline is `dateEnd`, or the end of `dateEndWithoutTime`'s UTC day.
 */
export const scopedTasks = (organizationId: number, scope: SQL, archived: boolean) => sql`
  select t.id, t.status, t.plan_time, t.created_at,
    coalesce(t.date_end, (t.date_end_without_time + 1)::timestamp at time zone 'UTC') as deadline
  from tasks t
  where t.organization_id = ${organizationId} and ${scope} ${archived ? sql`` : sql`and t.archived_at is null`}`;

/** Tasks of `scope` set to `status` (1 done, 2 rejected) in range, with the last such time. */
export const closedInRange = (status: 1 | 2, r: Range) => sql`
  select c.task_id as id, max(c.at) as at from task_status_changes c join scope s on s.id = c.task_id
  where c.status = ${status} and c.at >= ${r.from.toISOString()}::timestamptz and c.at < ${r.to.toISOString()}::timestamptz
  group by c.task_id`;

/** Tasks of `scope` overdue at `at`: created before, deadline before, and not done or rejected then. */
export const overdueAt = (at: Date | SQL) => {
  const m = at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at;
  // Judged now (a range that has not ended): the status then is the current one, read from the row
  // instead of one probe of the status history per task.
  if (at instanceof Date && at.getTime() >= Date.now() - 1000) {
    return sql`select s.id from scope s where s.created_at < ${m} and s.deadline < ${m} and s.status not in (1, 2)`;
  }
  return sql`
  select s.id from scope s
  where s.created_at < ${m} and s.deadline < ${m}
    and coalesce((select c.status from task_status_changes c where c.task_id = s.id and c.at < ${m}
                  order by c.at desc, c.id desc limit 1), 0) not in (1, 2)`;
};

/** Hours of time records dated in range on tasks of `scope`. */
export const recordsInRange = (r: Range) => sql`
  select tr.task_id, tr.user_id, tr.hours from time_records tr join scope s on s.id = tr.task_id
  where (tr.date::timestamp at time zone 'UTC') >= ${r.from.toISOString()}::timestamptz
    and (tr.date::timestamp at time zone 'UTC') < ${r.to.toISOString()}::timestamptz`;

export async function taskReport(db: Queryable, organizationId: number, scope: SQL, r: Range, archived: boolean): Promise<TaskReportDto> {
  const rows = await queryRows<{ report: TaskReportDto }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, archived)}),
      finished as (${closedInRange(1, r)}),
      overdue as (${overdueAt(judgedAt(r))}),
      records as (${recordsInRange(r)}),
      assignees as (
        select a.user_id, s.id, s.status, s.plan_time from task_assignees a join scope s on s.id = a.task_id
      )
      select jsonb_build_object(
        'total', (select count(*) from scope),
        'byStatus', (select jsonb_agg(jsonb_build_object('status', v.status, 'count', (select count(*) from scope s where s.status = v.status)) order by v.status)
                     from (values (0), (1), (2), (3)) v(status)),
        'overdue', (select count(*) from overdue),
        'created', (select count(*) from scope s where s.created_at >= ${r.from.toISOString()}::timestamptz and s.created_at < ${r.to.toISOString()}::timestamptz),
        'finished', (select count(*) from finished),
        'planTime', (select coalesce(sum(plan_time), 0) from scope),
        'factTime', (select coalesce(sum(hours), 0) from records),
        'byAssignee', coalesce((select jsonb_agg(jsonb_build_object(
            'userId', a.user_id,
            'total', a.total,
            'done', a.done,
            'overdue', a.overdue,
            'planTime', a.plan_time,
            'factTime', coalesce((select sum(hours) from records rc where rc.user_id = a.user_id), 0)) order by a.user_id)
          from (select user_id, count(*) as total, count(*) filter (where status = 1) as done,
                       count(*) filter (where id in (select id from overdue)) as overdue, coalesce(sum(plan_time), 0) as plan_time
                from assignees group by user_id) a), '[]'::jsonb)
      ) as report`,
  );
  return rows[0]!.report;
}
