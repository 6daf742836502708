import { sql, type SQL } from 'drizzle-orm';
import type { Scope } from './analytics.policy.js';

/**
 * Reading the rollups of migration 0013. A number over a range is the sum of the rollup rows of the
 * whole UTC days inside it, plus the ledger rows (`analytics_facts`) of the partial days at its edges,
 * minus what a task in several projects of the scope adds under its second and later projects
 * (`duplicate`), so that no report reads every task of its scope and every number stays exactly the
 * definition's.
 */
const DAY = 86_400_000;
export const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;
export const dateOf = (d: Date) => sql`${d.toISOString().slice(0, 10)}::date`;
export const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);
const ceilDay = (d: Date) => (floorDay(d).getTime() === d.getTime() ? d : new Date(floorDay(d).getTime() + DAY));

/** [from, to): whole days [e1, e2) come from the rollups, the edges [from, e1) and [e2, to) from the ledger. */
export interface Window {
  from: Date;
  to: Date;
  e1: Date;
  e2: Date;
}

export function windowOf(from: Date, to: Date): Window {
  const e1 = new Date(Math.min(ceilDay(from).getTime(), to.getTime()));
  const e2 = new Date(Math.max(floorDay(to).getTime(), e1.getTime()));
  return { from, to, e1, e2 };
}

/** The edges of `w` as a condition on `f.at`, or null when the range is whole days. */
export function edgesOf(w: Window): SQL | null {
  const parts = [
    ...(w.from < w.e1 ? [sql`(f.at >= ${iso(w.from)} and f.at < ${iso(w.e1)})`] : []),
    ...(w.e2 < w.to ? [sql`(f.at >= ${iso(w.e2)} and f.at < ${iso(w.to)})`] : []),
  ];
  return parts.length === 0 ? null : sql`(${sql.join(parts, sql` or `)})`;
}

export const wholeDays = (w: Window) => sql`r.day >= ${dateOf(w.e1)} and r.day < ${dateOf(w.e2)}`;

const projectsOf = (s: Scope) => sql`${`{${s.projects.join(',')}}`}::bigint[]`;

/** Rollup rows (`r`) of the scope. */
export const rollupIn = (s: Scope, archived: boolean) =>
  sql`r.project_id = any(${projectsOf(s)}) and r.assignee_id = ${s.assignee}${archived ? sql`` : sql` and not r.archived`}`;

/** Ledger rows (`f`) of the scope. */
export const factsIn = (s: Scope, archived: boolean) =>
  sql`f.project_id = any(${projectsOf(s)})${s.assignee === 0 ? sql`` : sql` and ${s.assignee}::bigint = any(f.assignees)`}${archived ? sql`` : sql` and not f.archived`}`;

/** A ledger row of a task counted already under an earlier project of the scope. */
export const duplicate = (s: Scope) =>
  s.projects.length > 1
    ? sql`(f.multi and exists (select 1 from task_stages ts where ts.task_id = f.task_id and ts.project_id = any(${projectsOf(s)}) and ts.project_id < f.project_id))`
    : sql`false`;

/** `u.id`: 0 for every row and, per user, each assignee (hours: whoever recorded them). */
const usersOf = (perUser: boolean) =>
  perUser
    ? sql`cross join lateral unnest(array[0::bigint] || case when f.kind <> 5 then f.assignees when f.user_id is null then '{}'::bigint[] else array[f.user_id] end) u(id)`
    : sql`cross join lateral (select 0::bigint as id) u`;

export interface NumbersOptions {
  archived: boolean;
  /** Break down per user (`key` is the user, 0 for all) or per project (no task counted once across projects). */
  key: 'user' | 'project';
  perUser?: boolean;
  /** Only these users' rows (besides 0). */
  users?: number[];
}

/**
 * `numbers(key, status, tasks, plan, created, finished, hours, overdue)`: signed parts that, summed per
 * key, give tasks now (per status), their planned hours, created / set to done (distinct tasks) /
 * hours recorded in `w`, and overdue at `m` (the sum of the overdue stretches' starts minus ends
 * before it).
 */
export function numbersCte(s: Scope, w: Window, m: Date, o: NumbersOptions): SQL {
  const perUser = o.key === 'user' && (o.perUser ?? false);
  const rk = o.key === 'user' ? sql`r.user_id` : sql`r.project_id`;
  const fk = o.key === 'user' ? sql`u.id` : sql`f.project_id`;
  const users = o.users ? sql`${`{0,${o.users.join(',')}}`}::bigint[]` : null;
  const roll = sql`${rollupIn(s, o.archived)}${perUser ? (users ? sql` and r.user_id = any(${users})` : sql``) : sql` and r.user_id = 0`}`;
  const onlyUsers = users && perUser ? sql` and u.id = any(${users})` : sql``;
  const dup = o.key === 'project' ? sql`false` : duplicate(s);
  const facts = (cond: SQL) => sql`from analytics_facts f ${usersOf(perUser)} where ${factsIn(s, o.archived)}${onlyUsers} and ${cond}`;
  const d = floorDay(m);
  const edges = edgesOf(w);
  const parts: SQL[] = [
    sql`select ${rk} as key, r.status, sum(r.tasks)::bigint as tasks, sum(r.plan_time) as plan, 0::bigint as created, 0::bigint as finished,
          0::numeric as hours, 0::bigint as overdue
        from analytics_counts r where ${roll} group by 1, 2`,
    sql`select ${rk}, null, 0, 0, sum(r.created), sum(r.finished), sum(r.hours), 0 from analytics_days r where ${roll} and ${wholeDays(w)} group by 1`,
    sql`select ${rk}, null, 0, 0, 0, 0, 0, sum(r.overdue) from analytics_days r where ${roll} and r.day < ${dateOf(d)} group by 1`,
    // A task set to done twice in range counts once: drop each change whose previous one to done was in range too.
    sql`select ${fk}, null, 0, 0, 0, -count(*), 0, 0
        ${facts(sql`not ${dup} and f.kind = 2 and f.prev_at is not null and f.prev_at >= ${iso(w.from)} and f.at >= ${iso(w.from)} and f.at < ${iso(w.to)}`)}
        group by 1`,
  ];
  if (edges) {
    parts.push(sql`select ${fk}, null, 0, 0, count(*) filter (where f.kind = 1), count(*) filter (where f.kind = 2),
          coalesce(sum(f.value::numeric) filter (where f.kind = 5), 0), 0
        ${facts(sql`not ${dup} and f.kind in (1, 2, 5) and ${edges}`)} group by 1`);
  }
  if (d < m) {
    parts.push(sql`select ${fk}, null, 0, 0, 0, 0, 0,
          count(*) filter (where f.at >= ${iso(d)} and f.at < ${iso(m)}) - count(*) filter (where f.until >= ${iso(d)} and f.until < ${iso(m)})
        ${facts(sql`not ${dup} and f.kind = 4 and ((f.at >= ${iso(d)} and f.at < ${iso(m)}) or (f.until >= ${iso(d)} and f.until < ${iso(m)}))`)}
        group by 1`);
  }
  if (s.projects.length > 1 && o.key === 'user') {
    const whole = sql`f.at >= ${iso(w.e1)} and f.at < ${iso(w.e2)}`;
    parts.push(sql`select ${fk}, case when f.kind = 0 then f.status end, -count(*) filter (where f.kind = 0),
          -coalesce(sum(f.value::numeric) filter (where f.kind = 0), 0),
          -count(*) filter (where f.kind = 1 and ${whole}), -count(*) filter (where f.kind = 2 and ${whole}),
          -coalesce(sum(f.value::numeric) filter (where f.kind = 5 and ${whole}), 0),
          -(count(*) filter (where f.kind = 4 and f.at < ${iso(d)}) - count(*) filter (where f.kind = 4 and f.until < ${iso(d)}))
        ${facts(dup)} group by 1, 2`);
  }
  return sql`numbers as (${sql.join(parts, sql` union all `)}),
    per as (select key, sum(tasks) as tasks, sum(plan) as plan, sum(created) as created, sum(finished) as finished, sum(hours) as hours,
              sum(overdue) as overdue from numbers group by key),
    per_status as (select key, status, sum(tasks) as n from numbers where status is not null group by key, status)`;
}
