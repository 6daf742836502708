import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { MemberReportRowDto } from './analytics.schemas.js';
import { closedInRange, recordsInRange, scopedTasks } from './task-report.service.js';

/**
 * One row per member of the organization, by user id: the tasks of `scope` assigned to them now, how
 * many of those were set to done in range and are overdue, their planned hours, the hours the member
 * recorded in range on tasks of the scope, and the member's last day of activity.
 */
export async function memberReport(db: Queryable, organizationId: number, scope: SQL, r: Range, page: { limit: number; offset: number }) {
  const rows = await queryRows<MemberReportRowDto & { total: number }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false, judgedAt(r))}),
      finished as (${closedInRange(1, r)}),
      records as (${recordsInRange(r)}),
      members as (select user_id, last_activity_at, count(*) over () as total from organization_members where organization_id = ${organizationId}
                  order by user_id limit ${page.limit} offset ${page.offset}),
      assigned as (
        select a.user_id, count(*) as n, count(*) filter (where s.od) as overdue, coalesce(sum(s.plan_time), 0) as plan_time
        from task_assignees a join scope s on s.id = a.task_id where a.user_id in (select user_id from members) group by a.user_id),
      done as (
        select a.user_id, count(*) as n from task_assignees a join finished f on f.id = a.task_id
        where a.user_id in (select user_id from members) group by a.user_id),
      hours as (select user_id, sum(hours) as hours from records group by user_id)
      select m.user_id as "userId", m.total::int as total,
        coalesce(ag.n, 0)::int as assigned, coalesce(d.n, 0)::int as finished, coalesce(ag.overdue, 0)::int as overdue,
        coalesce(ag.plan_time, 0)::float8 as "planTime", coalesce(h.hours, 0)::float8 as "factTime",
        coalesce(to_char(m.last_activity_at at time zone 'UTC', 'YYYY-MM-DD'),
          (select to_char(max(ad.day), 'YYYY-MM-DD') from user_activity_days ad where ad.organization_id = ${organizationId} and ad.user_id = m.user_id)) as "lastActivityDate"
      from members m left join assigned ag on ag.user_id = m.user_id left join done d on d.user_id = m.user_id
        left join hours h on h.user_id = m.user_id
      order by m.user_id`,
  );
  const total = rows[0]?.total ?? (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from organization_members where organization_id = ${organizationId}`))[0]!.n;
  return { items: rows.map(({ total: _total, ...row }) => ({ ...row, userId: Number(row.userId) })), total };
}
