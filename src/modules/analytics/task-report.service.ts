import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Scope } from './analytics.policy.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { TaskReportDto } from './analytics.schemas.js';
import { numbersCte, windowOf } from './rollup.sql.js';

/** The CTEs of a TaskReport: the scope's numbers per assignee (0: all), from the rollups. */
export const taskReportCtes = (s: Scope, r: Range, archived: boolean, now = new Date()) =>
  numbersCte(s, windowOf(r.from, r.to), judgedAt(r, now), { archived, key: 'user', perUser: true });

const count = (key: unknown, status: number) => sql`coalesce((select n from per_status where key = ${key} and status = ${status}), 0)`;

/** The TaskReport object, from `taskReportCtes` (`t`: the row of `per` whose key is 0). */
export const taskReportObject = sql`jsonb_build_object(
    'total', coalesce(t.tasks, 0),
    'byStatus', jsonb_build_array(${sql.join([0, 1, 2, 3].map((s) => sql`jsonb_build_object('status', ${s}::int, 'count', ${count(0, s)})`), sql`, `)}),
    'overdue', coalesce(t.overdue, 0),
    'created', coalesce(t.created, 0),
    'finished', coalesce(t.finished, 0),
    'planTime', coalesce(t.plan, 0)::float8,
    'factTime', coalesce(t.hours, 0)::float8,
    'byAssignee', coalesce((select jsonb_agg(jsonb_build_object(
        'userId', a.key, 'total', a.tasks, 'done', ${count(sql`a.key`, 1)}, 'overdue', a.overdue, 'planTime', a.plan::float8,
        'factTime', a.hours::float8) order by a.key)
      from per a where a.key <> 0 and a.tasks > 0), '[]'::jsonb))`;

/** The tasks of the scope now, and what happened to them in the range: one statement over rollup rows. */
export async function taskReport(db: Queryable, s: Scope, r: Range, archived: boolean): Promise<TaskReportDto> {
  const rows = await queryRows<{ report: TaskReportDto }>(
    db,
    sql`with ${taskReportCtes(s, r, archived)}
        select ${taskReportObject} as report from (select 1) one left join per t on t.key = 0`,
  );
  return rows[0]!.report;
}
