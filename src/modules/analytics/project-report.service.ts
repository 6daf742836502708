import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Scope } from './analytics.policy.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { ProjectReportDto } from './analytics.schemas.js';
import { edgesOf, factsIn, iso, wholeDays, windowOf } from './rollup.sql.js';
import { taskReportCtes, taskReportObject } from './task-report.service.js';

/** `{median, p85}` from percentile_cont(array[0.5, 0.85]) over `n` durations in days, null when there are none. */
const spread = (p: SQL, n: SQL) => sql`case when ${n} = 0 then null else jsonb_build_object(
    'median', round((${p})[1]::numeric, 2)::float8, 'p85', round((${p})[2]::numeric, 2)::float8) end`;

/**
 * A project's flow report: columns with their tasks now and the average stay of the stays that ended
 * in range; lead time (set to done − created) and cycle time (set to done − first move out of the
 * first column) over the tasks finished in range; throughput per week; and the TaskReport numbers.
 * Counts and stays come from the rollups (stays ended on the edge days from the ledger); the
 * durations need each task finished in range, from the ledger's changes to done: the last one in
 * range of each task, its creation, and its cycle time (kept on the row for the project's first
 * column as it was when synced, else from when the task first left each column).
 */
export async function projectReport(db: Queryable, s: Scope, projectId: number, r: Range): Promise<ProjectReportDto> {
  const weeks = (r.to.getTime() - r.from.getTime()) / (7 * 86_400_000);
  const w = windowOf(r.from, r.to);
  const edges = edgesOf(w);
  const rows = await queryRows<{ report: ProjectReportDto }>(
    db,
    sql`with ${taskReportCtes(s, r, false)},
      first_column as (select id from stages where project_id = ${projectId} order by "order", id limit 1),
      -- Lead and cycle time of each change to done in range; the cycle from the row when its column is
      -- still the first, else from when the task first left the one that is.
      done as materialized (
        select f.task_id, f.at, f.prev_at, date_part('epoch', f.at - f.until) / 86400 as lead,
          case when f.stage_id = c.id then case when f.departures ? c.id::text then f.value end
            else date_part('epoch', f.at - (f.departures ->> c.id::text)::timestamptz) / 86400 end as cycle
        from analytics_facts f left join first_column c on true
        where ${factsIn(s, false)} and f.kind = 2 and f.at >= ${iso(r.from)} and f.at < ${iso(r.to)}),
      -- A task set to done more than once in range counts once, with its last change: a change whose
      -- previous one to done was in range too marks the (few) tasks to collapse.
      again as (select distinct task_id from done where prev_at >= ${iso(r.from)}),
      finished as (
        select d.lead, d.cycle from done d where not exists (select 1 from again a where a.task_id = d.task_id)
        union all
        select * from (select distinct on (d.task_id) d.lead, d.cycle from done d join again a on a.task_id = d.task_id order by d.task_id, d.at desc) last),
      durations as (
        select count(*) as n, count(cycle) as cycles, percentile_cont(array[0.5, 0.85]) within group (order by lead) as lead,
          percentile_cont(array[0.5, 0.85]) within group (order by cycle) filter (where cycle is not null) as cycle
        from finished),
      column_counts as (
        select r.stage_id, sum(r.tasks) as n from analytics_counts r
        where r.project_id = ${projectId} and r.assignee_id = 0 and r.user_id = 0 and not r.archived group by r.stage_id),
      column_stays as (
        select k.stage_id, round((sum(k.seconds) / sum(k.n) / 86400)::numeric, 2)::float8 as days
        from (
          select r.stage_id, r.stays_ended as n, r.stay_seconds as seconds from analytics_flow r where r.project_id = ${projectId} and ${wholeDays(w)}
          ${edges ? sql`union all select f.stage_id, 1, f.value::numeric from analytics_facts f where f.project_id = ${projectId} and f.kind = 7 and ${edges}` : sql``}) k
        group by k.stage_id having sum(k.n) > 0),
      report as materialized (select ${taskReportObject} as o from (select 1) one left join per t on t.key = 0)
      select jsonb_build_object(
        'stages', coalesce((select jsonb_agg(jsonb_build_object('stageId', c.id, 'count', coalesce(cc.n, 0)::int, 'avgDaysInStage', cs.days)
            order by c."order", c.id)
          from stages c left join column_counts cc on cc.stage_id = c.id left join column_stays cs on cs.stage_id = c.id
          where c.project_id = ${projectId}), '[]'::jsonb),
        'leadTimeDays', ${spread(sql`d.lead`, sql`d.n`)},
        'cycleTimeDays', ${spread(sql`d.cycle`, sql`d.cycles`)},
        'throughput', round((d.n / ${weeks}::float8)::numeric, 2)::float8,
        'overdue', o -> 'overdue', 'planTime', o -> 'planTime', 'factTime', o -> 'factTime', 'byAssignee', o -> 'byAssignee'
      ) as report from report, durations d`,
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
