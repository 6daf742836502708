import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';
import type { Scope } from './analytics.policy.js';
import type { Range } from './analytics.range.js';
import { dateOf, duplicate, edgesOf, factsIn, floorDay, iso, numbersCte, rollupIn, wholeDays, windowOf } from './rollup.sql.js';

export type Interval = 'day' | 'week' | 'month';
const MAX_POINTS = 400;
const APPROX_DAYS: Record<Interval, number> = { day: 1, week: 7, month: 28 };

/** Where an interval begins: its UTC day, the Monday of its week, the first of its month. */
function startOf(t: Date, interval: Interval): Date {
  const d = floorDay(t);
  if (interval === 'week') return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000);
  if (interval === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return d;
}

function next(t: Date, interval: Interval): Date {
  if (interval === 'month') return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
  return new Date(t.getTime() + (interval === 'week' ? 7 : 1) * 86_400_000);
}

/**
 * The intervals of a range, clipped to it, with `m`, the moment a point's snapshot is taken (its end,
 * or now if earlier), as a `keyed(key, lo, m, d, day)` CTE: `key` its interval's start as a UTC
 * timestamp, `d`/`day` the midnight before `m`.
 */
export function keyedPoints(r: Range, interval: Interval, now: Date): SQL {
  if ((r.to.getTime() - r.from.getTime()) / 86_400_000 / APPROX_DAYS[interval] > MAX_POINTS) {
    throw new AppError('VALIDATION_FAILED', `at most ${MAX_POINTS} points: choose a longer interval or a shorter range`, [{ path: '/querystring/interval', message: 'too many points for this range' }]);
  }
  const los: Date[] = [];
  const ms: Date[] = [];
  for (let p = startOf(r.from, interval); p < r.to; p = next(p, interval)) {
    los.push(p < r.from ? r.from : p);
    const hi = next(p, interval) < r.to ? next(p, interval) : r.to;
    ms.push(hi < now ? hi : now);
  }
  const arr = (ds: Date[]) => sql`${`{${ds.map((d) => d.toISOString()).join(',')}}`}::timestamptz[]`;
  return sql`keyed as (
    select date_trunc(${interval}, p.lo at time zone 'UTC') as key, p.lo, p.m, p.d, (p.d at time zone 'UTC')::date as day
    from unnest(${arr(los)}, ${arr(ms)}, ${arr(ms.map(floorDay))}) as p(lo, m, d))`;
}

const keyOf = (x: SQL, interval: Interval) => sql`date_trunc(${interval}, ${x} at time zone 'UTC')`;
const fromOf = sql`to_char(k.lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Per point: the change of a count at its moment `m`, from marks (`f.at` adds one, `f.until` takes it
 * back): the rollup's days before `m`'s day (`days`: rows `(day, n)` plus any grouping), then the
 * ledger rows `facts` (a condition on `f`) marking that day before `m`.
 */
const marksAt = (days: SQL, facts: SQL, group: SQL = sql``) => sql`
  select k.key${group}, sum(dd.n) as n from keyed k join (${days}) dd on dd.day < k.day group by k.key${group}
  union all
  select k.key${group}, count(*) filter (where f.at >= k.d and f.at < k.m) - count(*) filter (where f.until >= k.d and f.until < k.m)
  from keyed k join analytics_facts f on ${facts} and ((f.at >= k.d and f.at < k.m) or (f.until >= k.d and f.until < k.m))
  where k.d < k.m group by k.key${group}`;

export interface SeriesPointRow {
  from: string;
  created: number;
  finished: number;
  overdue: number;
  factTime: number;
}

/** Per interval: created, set to done (distinct tasks), hours of records dated in it, and overdue at its end. */
export async function taskSeries(db: Queryable, s: Scope, r: Range, interval: Interval, now = new Date()): Promise<SeriesPointRow[]> {
  const w = windowOf(r.from, r.to);
  const roll = sql`${rollupIn(s, false)} and r.user_id = 0`;
  const dup = duplicate(s);
  const edges = edgesOf(w);
  const lastDay = dateOf(floorDay(now < r.to ? now : r.to));
  const adds: SQL[] = [
    sql`select date_trunc(${interval}, r.day::timestamp) as key, sum(r.created) as c, sum(r.finished) as f, sum(r.hours) as h
        from analytics_days r where ${roll} and ${wholeDays(w)} group by 1`,
    sql`select ${keyOf(sql`f.at`, interval)}, 0, -count(*), 0 from analytics_facts f
        where ${factsIn(s, false)} and not ${dup} and f.kind = 2 and f.prev_at is not null and f.at >= ${iso(w.from)} and f.at < ${iso(w.to)}
          and f.prev_at >= greatest(${iso(w.from)}, ${keyOf(sql`f.at`, interval)} at time zone 'UTC')
        group by 1`,
    ...(edges
      ? [sql`select ${keyOf(sql`f.at`, interval)}, count(*) filter (where f.kind = 1), count(*) filter (where f.kind = 2), coalesce(sum(f.value::numeric) filter (where f.kind = 5), 0)
             from analytics_facts f where ${factsIn(s, false)} and not ${dup} and f.kind in (1, 2, 5) and ${edges} group by 1`]
      : []),
    ...(s.projects.length > 1
      ? [sql`select ${keyOf(sql`f.at`, interval)}, -count(*) filter (where f.kind = 1), -count(*) filter (where f.kind = 2), -coalesce(sum(f.value::numeric) filter (where f.kind = 5), 0)
             from analytics_facts f where ${factsIn(s, false)} and ${dup} and f.kind in (1, 2, 5) and f.at >= ${iso(w.e1)} and f.at < ${iso(w.e2)} group by 1`]
      : []),
  ];
  const overdue = [
    marksAt(sql`select r.day, sum(r.overdue) as n from analytics_days r where ${roll} and r.day <= ${lastDay} group by 1`, sql`${factsIn(s, false)} and not ${dup} and f.kind = 4`),
    ...(s.projects.length > 1
      ? [sql`select k.key, -(count(*) filter (where f.at < k.d) - count(*) filter (where f.until < k.d)) from keyed k
             join analytics_facts f on ${factsIn(s, false)} and ${dup} and f.kind = 4 group by 1`]
      : []),
  ];
  return queryRows<SeriesPointRow>(
    db,
    sql`with ${keyedPoints(r, interval, now)},
      adds as (${sql.join(adds, sql` union all `)}),
      ods as (${sql.join(overdue, sql` union all `)})
      select ${fromOf} as "from", coalesce(a.c, 0)::int as created, coalesce(a.f, 0)::int as finished, coalesce(o.n, 0)::int as overdue,
        coalesce(a.h, 0)::float8 as "factTime"
      from keyed k
        left join (select key, sum(c) as c, sum(f) as f, sum(h) as h from adds group by key) a on a.key = k.key
        left join (select key, sum(n) as n from ods group by key) o on o.key = k.key
      order by k.lo`,
  );
}

/**
 * Cumulative flow: per interval, the tasks in each column of the project at its end (archived tasks
 * count until archived): the stays' entries minus their ends before that moment.
 */
export async function projectFlow(db: Queryable, organizationId: number, projectId: number, r: Range, interval: Interval, now = new Date()) {
  const lastDay = dateOf(floorDay(now < r.to ? now : r.to));
  return queryRows<{ from: string; stages: Array<{ stageId: number; count: number }> }>(
    db,
    sql`with ${keyedPoints(r, interval, now)},
      columns as (select id, "order" from stages where project_id = ${projectId}),
      counted as (${marksAt(
        sql`select r.stage_id, r.day, sum(r.delta) as n from analytics_flow r where r.project_id = ${projectId} and r.day <= ${lastDay} group by 1, 2`,
        sql`f.project_id = ${projectId} and f.organization_id = ${organizationId} and f.kind = 6`,
        sql`, stage_id`,
      )}),
      totals as (select key, stage_id, sum(n) as n from counted group by 1, 2)
      select ${fromOf} as "from",
        coalesce(jsonb_agg(jsonb_build_object('stageId', c.id, 'count', coalesce(t.n, 0)::int) order by c."order", c.id)
          filter (where c.id is not null), '[]'::jsonb) as stages
      from keyed k left join columns c on true left join totals t on t.key = k.key and t.stage_id = c.id
      group by k.key, k.lo order by k.lo`,
  );
}

/** Per project of the space (at home or linked): its tasks now, done now, overdue at `at`. */
export async function projectsBreakdown(db: Queryable, s: Scope, r: Range, at: Date) {
  const rows = await queryRows<{ projectId: number; total: number; done: number; overdue: number }>(
    db,
    sql`with ${numbersCte(s, windowOf(r.from, r.to), at, { archived: false, key: 'project' })}
      select p.id as "projectId", coalesce(x.tasks, 0)::int as total,
        coalesce((select n from per_status ps where ps.key = p.id and ps.status = 1), 0)::int as done, coalesce(x.overdue, 0)::int as overdue
      from unnest(${`{${s.projects.join(',')}}`}::bigint[]) p(id) left join per x on x.key = p.id
      order by p.id`,
  );
  return rows.map((row) => ({ ...row, projectId: Number(row.projectId) }));
}
