import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Scope } from './analytics.policy.js';
import { judgedAt, type Range } from './analytics.range.js';
import type { MemberReportRowDto } from './analytics.schemas.js';
import { numbersCte, windowOf } from './rollup.sql.js';

/**
 * One row per member of the organization, by user id: the tasks of the scope assigned to them now,
 * how many of those were set to done in range and are overdue, their planned hours, the hours the
 * member recorded in range on tasks of the scope, and the member's last day of activity. The page of
 * members is chosen first; their numbers come from the rollups' per-user rows.
 */
export async function memberReport(db: Queryable, s: Scope, r: Range, page: { limit: number; offset: number }) {
  const members = await queryRows<{ userId: number; lastActivityDate: string | null; total: number }>(
    db,
    sql`select m.user_id as "userId", count(*) over ()::int as total,
          coalesce(to_char(m.last_activity_at at time zone 'UTC', 'YYYY-MM-DD'),
            (select to_char(max(ad.day), 'YYYY-MM-DD') from user_activity_days ad where ad.organization_id = ${s.organizationId} and ad.user_id = m.user_id)) as "lastActivityDate"
        from organization_members m where m.organization_id = ${s.organizationId}
        order by m.user_id limit ${page.limit} offset ${page.offset}`,
  );
  const total = members[0]?.total ?? (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from organization_members where organization_id = ${s.organizationId}`))[0]!.n;
  if (members.length === 0) return { items: [], total };
  const users = members.map((m) => Number(m.userId));
  const numbers = await queryRows<{ key: number; tasks: number; finished: number; overdue: number; plan: number; hours: number }>(
    db,
    sql`with ${numbersCte(s, windowOf(r.from, r.to), judgedAt(r), { archived: false, key: 'user', perUser: true, users })}
        select key, tasks::int, finished::int, overdue::int, plan::float8, hours::float8 from per where key <> 0`,
  );
  const byUser = new Map(numbers.map((n) => [Number(n.key), n]));
  const items: MemberReportRowDto[] = members.map((m) => {
    const n = byUser.get(Number(m.userId));
    return {
      userId: Number(m.userId),
      assigned: n?.tasks ?? 0,
      finished: n?.finished ?? 0,
      overdue: n?.overdue ?? 0,
      planTime: n?.plan ?? 0,
      factTime: n?.hours ?? 0,
      lastActivityDate: m.lastActivityDate,
    };
  });
  return { items, total };
}
