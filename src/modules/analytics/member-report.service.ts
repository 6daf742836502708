import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { MemberReportRowDto } from './analytics.schemas.js';
import { closedInRange, overdueAt, recordsInRange, scopedTasks } from './task-report.service.js';

/**
 * One row per member of the organization, by user id: the tasks of `scope` assigned to them now, how
 * many of those were set to done in range and are overdue, their planned hours, the hours the member
 * recorded in range on tasks of the scope, and the member's last day of activity.
 */
export async function memberReport(db: Queryable, organizationId: number, scope: SQL, r: Range, page: { limit: number; offset: number }) {
  const rows = await queryRows<MemberReportRowDto & { total: number }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false)}),
      finished as (${closedInRange(1, r)}),
      overdue as (${overdueAt(judgedAt(r))}),
      records as (${recordsInRange(r)}),
      members as (select user_id, last_activity_at, count(*) over () as total from organization_members where organization_id = ${organizationId}
                  order by user_id limit ${page.limit} offset ${page.offset})
      select m.user_id as "userId", m.total::int as total,
        (select count(*) from task_assignees a join scope s on s.id = a.task_id where a.user_id = m.user_id)::int as assigned,
        (select count(*) from task_assignees a join finished f on f.id = a.task_id where a.user_id = m.user_id)::int as finished,
        (select count(*) from task_assignees a join overdue o on o.id = a.task_id where a.user_id = m.user_id)::int as overdue,
        (select coalesce(sum(s.plan_time), 0) from task_assignees a join scope s on s.id = a.task_id where a.user_id = m.user_id)::float8 as "planTime",
        (select coalesce(sum(rc.hours), 0) from records rc where rc.user_id = m.user_id)::float8 as "factTime",
        coalesce(to_char(m.last_activity_at at time zone 'UTC', 'YYYY-MM-DD'),
          (select to_char(max(d.day), 'YYYY-MM-DD') from user_activity_days d where d.organization_id = ${organizationId} and d.user_id = m.user_id)) as "lastActivityDate"
      from members m order by m.user_id`,
  );
  const total = rows[0]?.total ?? (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from organization_members where organization_id = ${organizationId}`))[0]!.n;
  return { items: rows.map(({ total: _total, ...row }) => ({ ...row, userId: Number(row.userId) })), total };
}
