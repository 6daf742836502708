import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';
import type { Range } from './analytics.range.js';
import { overdueAt, scopedTasks } from './task-report.service.js';

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

/** Per interval: created, set to done, overdue at its end, and hours of records dated in it. */
export async function taskSeries(db: Queryable, organizationId: number, scope: SQL, r: Range, interval: Interval): Promise<SeriesPointRow[]> {
  return queryRows<SeriesPointRow>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false)}),
      points as (${pointsOf(r, interval)})
      select to_char(pt.lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "from",
        (select count(*) from scope s where s.created_at >= pt.lo and s.created_at < pt.hi)::int as created,
        (select count(distinct c.task_id) from task_status_changes c join scope s on s.id = c.task_id
          where c.status = 1 and c.at >= pt.lo and c.at < pt.hi)::int as finished,
        (select count(*) from (${overdueAt(sql`pt.m`)}) o)::int as overdue,
        (select coalesce(sum(tr.hours), 0) from time_records tr join scope s on s.id = tr.task_id
          where (tr.date::timestamp at time zone 'UTC') >= pt.lo and (tr.date::timestamp at time zone 'UTC') < pt.hi)::float8 as "factTime"
      from points pt order by pt.lo`,
  );
}

/** Cumulative flow: per interval, the tasks in each column of the project at its end (from the stays; archived tasks count until archived). */
export async function projectFlow(db: Queryable, projectId: number, r: Range, interval: Interval) {
  return queryRows<{ from: string; stages: Array<{ stageId: number; count: number }> }>(
    db,
    sql`with points as (${pointsOf(r, interval)}),
      columns as (select id, "order" from stages where project_id = ${projectId})
      select to_char(pt.lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "from",
        (select jsonb_agg(jsonb_build_object('stageId', c.id, 'count',
            (select count(*) from task_stage_stays st join tasks t on t.id = st.task_id
              where st.project_id = ${projectId} and st.stage_id = c.id and st.entered_at < pt.m and (st.left_at is null or st.left_at >= pt.m)
                and (t.archived_at is null or t.archived_at >= pt.m))) order by c."order", c.id)
         from columns c) as stages
      from points pt order by pt.lo`,
  ).then((rows) => rows.map((row) => ({ from: row.from, stages: row.stages ?? [] })));
}

/** Per project of the space (at home or linked): its tasks now, done now, overdue at `at`. */
export async function projectsBreakdown(db: Queryable, organizationId: number, scope: SQL, projects: SQL, at: Date) {
  const rows = await queryRows<{ projectId: number; total: number; done: number; overdue: number }>(
    db,
    sql`with scope as materialized (${scopedTasks(organizationId, scope, false)}),
      overdue as (${overdueAt(at)})
      select p.id as "projectId", count(s.id)::int as total, (count(*) filter (where s.status = 1))::int as done,
        (count(*) filter (where s.id in (select id from overdue)))::int as overdue
      from ${projects} p(id) left join task_stages ts on ts.project_id = p.id left join scope s on s.id = ts.task_id
      group by p.id order by p.id`,
  );
  return rows.map((row) => ({ ...row, projectId: Number(row.projectId) }));
}
