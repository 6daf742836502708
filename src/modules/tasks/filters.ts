import { sql, type SQL } from 'drizzle-orm';
import { AppError } from '../../platform/errors.js';

// Filters of the organization-wide task lists (routes.md's uniform names), as SQL conditions on
// task `t`. Values are bound parameters; only the column names are written here.

const DAY_MS = 86_400_000;
const isDateOnly = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/** `from`/`to` on a timestamp column; a bare date as `to` means the whole day (UTC), an instant is inclusive. */
export function dateRange(column: SQL, from: string | undefined, to: string | undefined): SQL[] {
  const where: SQL[] = [];
  if (from !== undefined) where.push(sql`${column} >= ${new Date(from).toISOString()}::timestamptz`);
  if (to !== undefined) {
    where.push(
      isDateOnly(to)
        ? sql`${column} < ${new Date(new Date(to).getTime() + DAY_MS).toISOString()}::timestamptz`
        : sql`${column} <= ${new Date(to).toISOString()}::timestamptz`,
    );
  }
  return where;
}

export function statusIn(statuses: string | undefined): SQL[] {
  if (!statuses) return [];
  return [sql`t.status = any(${`{${[...new Set(statuses.split(',').map(Number))].join(',')}}`}::smallint[])`];
}

export const assignedTo = (userId: number): SQL => sql`exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${userId})`;

/** Tasks on a board of the space: projects at home there or linked into it, not in the trash. */
export const inSpace = (spaceId: number): SQL =>
  sql`exists (select 1 from task_stages ts join projects p on p.id = ts.project_id and p.deleted_at is null
      where ts.task_id = t.id and (p.space_id = ${spaceId} or exists (select 1 from project_spaces ps where ps.project_id = p.id and ps.space_id = ${spaceId})))`;

export const inProject = (projectId: number): SQL =>
  sql`exists (select 1 from task_stages ts where ts.task_id = t.id and ts.project_id = ${projectId})`;

/** Assignee, member or inspector (routes.md's "participation"). */
export const participating = (userId: number): SQL =>
  sql`t.id in (select task_id from task_assignees where user_id = ${userId}
               union select task_id from task_members where user_id = ${userId}
               union select task_id from task_inspectors where user_id = ${userId})`;

export interface Day {
  /** YYYY-MM-DD in the time zone. */
  date: string;
  /** The instants the day begins and ends (exclusive). */
  from: Date;
  to: Date;
}

/**
 * Today in an IANA time zone, computed here (Intl) rather than in SQL so that PGlite and
 * PostgreSQL agree whatever time-zone data each ships. An unknown zone answers 400.
 */
export function today(tz = 'UTC', now = new Date()): Day {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    throw new AppError('VALIDATION_FAILED', `tz: unknown time zone "${tz}"`, [{ path: '/tz', message: 'must be an IANA time zone' }]);
  }
  const parts = (d: Date) => Object.fromEntries(format.formatToParts(d).map((p) => [p.type, p.value])) as Record<string, string>;
  // The zone's offset at an instant: its wall-clock reading taken as UTC, minus the instant.
  const offsetAt = (ms: number) => {
    const p = parts(new Date(ms));
    return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - Math.floor(ms / 1000) * 1000;
  };
  const midnight = (y: number, m: number, d: number) => {
    const wall = Date.UTC(y, m - 1, d);
    // Twice: the offset at the first guess may differ from the offset at midnight across a DST change.
    const first = wall - offsetAt(wall);
    return new Date(wall - offsetAt(first));
  };
  const p = parts(now);
  const [y, m, d] = [+p.year!, +p.month!, +p.day!];
  return { date: `${p.year}-${p.month}-${p.day}`, from: midnight(y, m, d), to: midnight(y, m, d + 1) };
}

/** A timestamp column within the day. */
export const within = (column: SQL, day: Day): SQL =>
  sql`${column} >= ${day.from.toISOString()}::timestamptz and ${column} < ${day.to.toISOString()}::timestamptz`;
