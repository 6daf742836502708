import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { ProjectReportDto } from './analytics.schemas.js';
import { closedInRange, scopedTasks, taskReportCtes, taskReportObject } from './task-report.service.js';

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Median and 85th percentile of a set of durations in days, null when the set is empty. */
const spread = (days: SQL, from: SQL) => sql`(select case when count(*) = 0 then null else jsonb_build_object(
    'median', round((percentile_cont(0.5) within group (order by ${days}))::numeric, 2)::float8,
    'p85', round((percentile_cont(0.85) within group (order by ${days}))::numeric, 2)::float8) end ${from})`;

/**
 * A project's flow report: columns with their tasks now and the average stay of the stays that ended
 * in range; lead time (set to done − created) and cycle time (set to done − first move out of the
 * first column) over the tasks finished in range; throughput per week; and the TaskReport numbers.
 * One statement: the TaskReport's pass over the scope, then one grouped join per column number.
 */
export async function projectReport(db: Queryable, organizationId: number, projectId: number, scope: SQL, r: Range): Promise<ProjectReportDto> {
  const weeks = (r.to.getTime() - r.from.getTime()) / (7 * 86_400_000);
  const rows = await queryRows<{ report: ProjectReportDto }>(
    db,
    sql`with ${taskReportCtes(organizationId, scope, r, false)},
      first_column as (select id from stages where project_id = ${projectId} order by "order", id limit 1),
      left_first as (
        select st.task_id, min(st.left_at) as at from task_stage_stays st
        where st.project_id = ${projectId} and st.stage_id = (select id from first_column) and st.left_at is not null
          and st.task_id in (select id from finished)
        group by st.task_id),
      durations as (
        select extract(epoch from (f.at - s.created_at)) / 86400 as lead, extract(epoch from (f.at - lf.at)) / 86400 as cycle
        from finished f join scope s on s.id = f.id left join left_first lf on lf.task_id = f.id),
      column_counts as (
        select ts.stage_id, count(*) as n from task_stages ts join scope s on s.id = ts.task_id
        where ts.project_id = ${projectId} group by ts.stage_id),
      column_stays as (
        select st.stage_id, round((avg(extract(epoch from (st.left_at - st.entered_at)) / 86400))::numeric, 2)::float8 as days
        from task_stage_stays st
        where st.project_id = ${projectId} and st.left_at >= ${iso(r.from)} and st.left_at < ${iso(r.to)}
        group by st.stage_id),
      report as materialized (select ${taskReportObject} as o from totals t)
      select jsonb_build_object(
        'stages', coalesce((select jsonb_agg(jsonb_build_object('stageId', c.id, 'count', coalesce(cc.n, 0), 'avgDaysInStage', cs.days)
            order by c."order", c.id)
          from stages c left join column_counts cc on cc.stage_id = c.id left join column_stays cs on cs.stage_id = c.id
          where c.project_id = ${projectId}), '[]'::jsonb),
        'leadTimeDays', ${spread(sql`lead`, sql`from durations`)},
        'cycleTimeDays', ${spread(sql`cycle`, sql`from durations where cycle is not null`)},
        'throughput', round(((select count(*) from finished) / ${weeks}::float8)::numeric, 2)::float8,
        'overdue', o -> 'overdue', 'planTime', o -> 'planTime', 'factTime', o -> 'factTime', 'byAssignee', o -> 'byAssignee'
      ) as report from report`,
  );
  return rows[0]!.report;
}

export type Metric = 'total' | 'created' | 'finished' | 'rejected' | 'overdue';

/** A page of the ids behind a number of the reports, in id order: exactly the tasks the number counts. */
export async function taskIdsBehind(db: Queryable, organizationId: number, scope: SQL, r: Range, metric: Metric, page: { limit: number; offset: number }): Promise<{ ids: number[]; total: number }> {
  const pick: Record<Metric, SQL> = {
    total: sql`select id from scope`,
    created: sql`select id from scope s where s.created_at >= ${iso(r.from)} and s.created_at < ${iso(r.to)}`,
    finished: sql`select id from (${closedInRange(1, r)}) x`,
    rejected: sql`select id from (${closedInRange(2, r)}) x`,
    overdue: sql`select id from scope where od`,
  };
  const rows = await queryRows<{ id: number; total: number }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false, metric === 'overdue' ? judgedAt(r) : undefined)})
        select id, count(*) over ()::int as total from (${pick[metric]}) ids order by id limit ${page.limit} offset ${page.offset}`,
  );
  if (rows.length === 0 && page.offset > 0) return { ids: [], total: (await taskIdsBehind(db, organizationId, scope, r, metric, { limit: 1, offset: 0 })).total };
  return { ids: rows.map((row) => Number(row.id)), total: rows[0]?.total ?? 0 };
}
