import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Scope } from './analytics.policy.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { ProjectReportDto } from './analytics.schemas.js';
import { factsIn, iso } from './rollup.sql.js';
import { taskReportCtes, taskReportObject } from './task-report.service.js';

/** Median and 85th percentile of a set of durations in days, null when the set is empty. */
const spread = (days: SQL, from: SQL) => sql`(select case when count(*) = 0 then null else jsonb_build_object(
    'median', round((percentile_cont(0.5) within group (order by ${days}))::numeric, 2)::float8,
    'p85', round((percentile_cont(0.85) within group (order by ${days}))::numeric, 2)::float8) end ${from})`;

/**
 * A project's flow report: columns with their tasks now and the average stay of the stays that ended
 * in range; lead time (set to done − created) and cycle time (set to done − first move out of the
 * first column) over the tasks finished in range; throughput per week; and the TaskReport numbers.
 * The counts come from the rollups; the durations need each task finished in range, from the
 * ledger: its last change to done in range, its creation, and when it first left each column.
 */
export async function projectReport(db: Queryable, s: Scope, projectId: number, r: Range): Promise<ProjectReportDto> {
  const weeks = (r.to.getTime() - r.from.getTime()) / (7 * 86_400_000);
  const rows = await queryRows<{ report: ProjectReportDto }>(
    db,
    sql`with ${taskReportCtes(s, r, false)},
      first_column as (select id from stages where project_id = ${projectId} order by "order", id limit 1),
      finished as (
        select f.task_id, max(f.at) as at, min(f.until) as created_at, (array_agg(f.departures))[1] as departures from analytics_facts f
        where ${factsIn(s, false)} and f.kind = 2 and f.at >= ${iso(r.from)} and f.at < ${iso(r.to)} group by f.task_id),
      durations as (
        select extract(epoch from (fi.at - fi.created_at)) / 86400 as lead,
          extract(epoch from (fi.at - (fi.departures ->> (select id::text from first_column))::timestamptz)) / 86400 as cycle
        from finished fi),
      column_counts as (
        select r.stage_id, sum(r.tasks) as n from analytics_counts r
        where r.project_id = ${projectId} and r.assignee_id = 0 and r.user_id = 0 and not r.archived group by r.stage_id),
      column_stays as (
        select st.stage_id, round((avg(extract(epoch from (st.left_at - st.entered_at)) / 86400))::numeric, 2)::float8 as days
        from task_stage_stays st
        where st.project_id = ${projectId} and st.left_at >= ${iso(r.from)} and st.left_at < ${iso(r.to)}
        group by st.stage_id),
      report as materialized (select ${taskReportObject} as o from (select 1) one left join per t on t.key = 0)
      select jsonb_build_object(
        'stages', coalesce((select jsonb_agg(jsonb_build_object('stageId', c.id, 'count', coalesce(cc.n, 0)::int, 'avgDaysInStage', cs.days)
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

export interface DrillFilters {
  projectId?: number;
  stageId?: number;
  responsibleId?: number;
}

/**
 * A page of the ids behind a number of the reports, in id order: exactly the tasks the number counts,
 * read from the same ledger rows the number was summed from.
 */
export async function taskIdsBehind(db: Queryable, s: Scope, r: Range, metric: Metric, filters: DrillFilters, page: { limit: number; offset: number }): Promise<{ ids: number[]; total: number }> {
  const m = judgedAt(r);
  const inRange = sql`f.at >= ${iso(r.from)} and f.at < ${iso(r.to)}`;
  const pick: Record<Metric, SQL> = {
    total: sql`f.kind = 0`,
    created: sql`f.kind = 1 and ${inRange}`,
    finished: sql`f.kind = 2 and ${inRange}`,
    rejected: sql`f.kind = 3 and ${inRange}`,
    overdue: sql`f.kind = 4 and f.at < ${iso(m)} and (f.until is null or f.until >= ${iso(m)})`,
  };
  const where = [
    factsIn(s, false),
    pick[metric],
    ...(filters.projectId ? [sql`exists (select 1 from task_stages ts where ts.task_id = f.task_id and ts.project_id = ${filters.projectId})`] : []),
    ...(filters.stageId ? [sql`exists (select 1 from task_stages ts where ts.task_id = f.task_id and ts.stage_id = ${filters.stageId})`] : []),
    ...(filters.responsibleId ? [sql`${filters.responsibleId}::bigint = any(f.assignees)`] : []),
  ];
  // One row per task and project, except changes (a task may be set to done twice): no dedup needed
  // for the rest on one project.
  const once = s.projects.length > 1 || metric === 'finished' || metric === 'rejected';
  const rows = await queryRows<{ id: number; total: number }>(
    db,
    // Materialized: read by the (project, kind, at) index, then sorted; walking the task index in id
    // order and filtering would read the whole ledger.
    sql`with ids as materialized (select ${once ? sql`distinct` : sql``} f.task_id as id from analytics_facts f where ${sql.join(where, sql` and `)})
        select id, count(*) over ()::int as total from ids order by id limit ${page.limit} offset ${page.offset}`,
  );
  if (rows.length === 0 && page.offset > 0) return { ids: [], total: (await taskIdsBehind(db, s, r, metric, filters, { limit: 1, offset: 0 })).total };
  return { ids: rows.map((row) => Number(row.id)), total: rows[0]?.total ?? 0 };
}
