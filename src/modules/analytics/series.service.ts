import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';
import type { Range } from './analytics.range.js';
import { scopedTasks } from './task-report.service.js';

export type Interval = 'day' | 'week' | 'month';
const MAX_POINTS = 400;
const APPROX_DAYS: Record<Interval, number> = { day: 1, week: 7, month: 28 };

/**
 * The intervals of a range as a `points(lo, hi, m)` CTE body: UTC days, ISO weeks (from Monday) or
 * months, clipped to the range; `m` is when a point's snapshot is taken (its end, or now if earlier).
 */
export function pointsOf(r: Range, interval: Interval): SQL {
  if ((r.to.getTime() - r.from.getTime()) / 86_400_000 / APPROX_DAYS[interval] > MAX_POINTS) {
    throw new AppError('VALIDATION_FAILED', `at most ${MAX_POINTS} points: choose a longer interval or a shorter range`, [{ path: '/querystring/interval', message: 'too many points for this range' }]);
  }
  const from = sql`(${r.from.toISOString()}::timestamptz at time zone 'UTC')`;
  const to = sql`(${r.to.toISOString()}::timestamptz at time zone 'UTC')`;
  const step = sql`${`1 ${interval}`}::interval`;
  return sql`
    select greatest(p, ${from}) at time zone 'UTC' as lo, least(p + ${step}, ${to}) at time zone 'UTC' as hi,
           least(least(p + ${step}, ${to}) at time zone 'UTC', now()) as m
    from generate_series(date_trunc(${interval}, ${from}), ${to} - interval '1 microsecond', ${step}) p`;
}

export interface SeriesPointRow {
  from: string;
  created: number;
  finished: number;
  overdue: number;
  factTime: number;
}

/**
 * The points keyed by their interval's start (`key`, a UTC timestamp): a fact at time x counts at
 * every point whose moment `m` is after x, so it is bucketed once into the interval holding x (facts
 * before the range into the first) and summed cumulatively over the points; facts at or after the
 * last moment never count. One pass over the facts instead of one scan per point.
 */
const keyedPoints = (r: Range, interval: Interval) => sql`
  points as (${pointsOf(r, interval)}),
  keyed as (select pt.lo, pt.hi, pt.m, date_trunc(${interval}, pt.lo at time zone 'UTC') as key from points pt),
  bounds as (select min(key) as first, max(m) as last from keyed)`;
const bucketOf = (x: SQL, interval: Interval) => sql`greatest(date_trunc(${interval}, ${x} at time zone 'UTC'), (select first from bounds))`;
const keyOf = (x: SQL, interval: Interval) => sql`date_trunc(${interval}, ${x} at time zone 'UTC')`;

/**
 * Per interval: created, set to done, overdue at its end, and hours of records dated in it. Overdue
 * at m: created and deadline before m and not done or rejected then, i.e. m inside a stretch of the
 * status history that is neither done nor rejected and starts after the deadline: each stretch adds
 * one from its start and takes it back from its end.
 */
export async function taskSeries(db: Queryable, organizationId: number, scope: SQL, r: Range, interval: Interval): Promise<SeriesPointRow[]> {
  const from = sql`${r.from.toISOString()}::timestamptz`;
  const to = sql`${r.to.toISOString()}::timestamptz`;
  return queryRows<SeriesPointRow>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false)}),
      ${keyedPoints(r, interval)},
      created as (select ${keyOf(sql`created_at`, interval)} as key, count(*) as n from scope where created_at >= ${from} and created_at < ${to} group by 1),
      finished as (
        select ${keyOf(sql`c.at`, interval)} as key, count(distinct c.task_id) as n from task_status_changes c join scope s on s.id = c.task_id
        where c.status = 1 and c.at >= ${from} and c.at < ${to} group by 1),
      facts as (
        select ${keyOf(sql`(tr.date::timestamp at time zone 'UTC')`, interval)} as key, sum(tr.hours) as hours
        from time_records tr join scope s on s.id = tr.task_id
        where (tr.date::timestamp at time zone 'UTC') >= ${from} and (tr.date::timestamp at time zone 'UTC') < ${to} group by 1),
      stretches as (
        select greatest(c.at, s.deadline, s.created_at) as start,
               lead(c.at) over (partition by c.task_id order by c.at, c.id) as stop, c.status
        from task_status_changes c join scope s on s.id = c.task_id
        where s.deadline < (select last from bounds)),
      marks as (
        select start as x, 1 as d from stretches where status not in (1, 2) and (stop is null or stop > start)
        union all
        select stop, -1 from stretches where status not in (1, 2) and stop > start),
      overdue as (select ${bucketOf(sql`x`, interval)} as key, sum(d) as d from marks where x < (select last from bounds) group by 1)
      select to_char(k.lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "from",
        coalesce(c.n, 0)::int as created, coalesce(f.n, 0)::int as finished,
        (sum(coalesce(o.d, 0)) over (order by k.lo))::int as overdue,
        coalesce(fa.hours, 0)::float8 as "factTime"
      from keyed k left join created c on c.key = k.key left join finished f on f.key = k.key
        left join facts fa on fa.key = k.key left join overdue o on o.key = k.key
      order by k.lo`,
  );
}

/**
 * Cumulative flow: per interval, the tasks in each column of the project at its end (from the stays;
 * archived tasks count until archived). A stay adds one from its entry and takes it back from when it
 * left or its task was archived, whichever came first.
 */
export async function projectFlow(db: Queryable, projectId: number, r: Range, interval: Interval) {
  return queryRows<{ from: string; stages: Array<{ stageId: number; count: number }> }>(
    db,
    sql`with ${keyedPoints(r, interval)},
      columns as (select id, "order" from stages where project_id = ${projectId}),
      stays as (
        select st.stage_id, st.entered_at, least(st.left_at, t.archived_at) as ended
        from task_stage_stays st join tasks t on t.id = st.task_id
        where st.project_id = ${projectId} and st.entered_at < (select last from bounds)),
      marks as (
        select stage_id, entered_at as x, 1 as d from stays where ended is null or ended > entered_at
        union all
        select stage_id, ended, -1 from stays where ended > entered_at),
      moves as (select stage_id, ${bucketOf(sql`x`, interval)} as key, sum(d) as d from marks where x < (select last from bounds) group by 1, 2),
      counted as (
        select k.lo, c.id as stage_id, c."order", sum(coalesce(mv.d, 0)) over (partition by c.id order by k.lo) as n
        from keyed k cross join columns c left join moves mv on mv.stage_id = c.id and mv.key = k.key)
      select to_char(k.lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "from",
        coalesce(jsonb_agg(jsonb_build_object('stageId', ct.stage_id, 'count', ct.n::int) order by ct."order", ct.stage_id)
          filter (where ct.stage_id is not null), '[]'::jsonb) as stages
      from keyed k left join counted ct on ct.lo = k.lo group by k.lo order by k.lo`,
  ).then((rows) => rows.map((row) => ({ from: row.from, stages: row.stages ?? [] })));
}

/** Per project of the space (at home or linked): its tasks now, done now, overdue at `at`. */
export async function projectsBreakdown(db: Queryable, organizationId: number, scope: SQL, projects: SQL, at: Date) {
  const rows = await queryRows<{ projectId: number; total: number; done: number; overdue: number }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false, at)})
      select p.id as "projectId", count(s.id)::int as total, (count(*) filter (where s.status = 1))::int as done,
        (count(*) filter (where s.od))::int as overdue
      from ${projects} p(id) left join task_stages ts on ts.project_id = p.id left join scope s on s.id = ts.task_id
      group by p.id order by p.id`,
  );
  return rows.map((row) => ({ ...row, projectId: Number(row.projectId) }));
}
