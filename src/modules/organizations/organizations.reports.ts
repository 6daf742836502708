import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { authorizeOrganization } from './organizations.policy.js';

export interface EntityCounts {
  spaces: number;
  projects: number;
  tasks: number;
  archivedTasks: number;
  reglaments: number;
  pages: number;
  members: number;
  activeMembers: number;
}

/** Snapshot counts of the organization, one statement (archived pages are not counted). */
export async function entityCounts(ctx: Ctx): Promise<EntityCounts> {
  authorizeOrganization(ctx.actor, 'readCounts');
  const org = ctx.actor.organizationId;
  const [row] = await queryRows<EntityCounts>(
    ctx.db,
    sql`select
      (select count(*)::int from spaces where organization_id = ${org}) as spaces,
      (select count(*)::int from projects where organization_id = ${org} and deleted_at is null) as projects,
      (select count(*)::int from tasks where organization_id = ${org} and archived_at is null) as tasks,
      (select count(*)::int from tasks where organization_id = ${org} and archived_at is not null) as "archivedTasks",
      (select count(*)::int from reglaments where organization_id = ${org}) as reglaments,
      (select count(*)::int from pages where organization_id = ${org} and archived_at is null) as pages,
      (select count(*)::int from organization_members where organization_id = ${org} and deleted_at is null) as members,
      (select count(*)::int from organization_members where organization_id = ${org} and deleted_at is null and active) as "activeMembers"`,
  );
  return row!;
}

export interface ActivityRow {
  userId: number;
  lastActivityDate: string | null;
  activeDays: number;
  tasksCreated: number;
  tasksFinished: number;
  messages: number;
  factTime: number;
}

/**
 * Per member over [dateFrom, dateTo] (UTC days): days with any authenticated request, tasks
 * created, tasks finished among those assigned to them (status done, changed in the period),
 * chat messages written and hours recorded. One statement whatever the member count.
 */
export async function userActivity(ctx: Ctx, query: { dateFrom: string; dateTo: string; userId?: number }): Promise<ActivityRow[]> {
  authorizeOrganization(ctx.actor, 'readActivity');
  const org = ctx.actor.organizationId;
  const from = sql`${query.dateFrom}::date`;
  const toExclusive = sql`(${query.dateTo}::date + 1)`;
  const rows = await queryRows<ActivityRow & { lastActivityDate: Date | string | null }>(
    ctx.db,
    sql`select m.user_id as "userId", m.last_activity_at as "lastActivityDate",
      (select count(*)::int from user_activity_days d
        where d.organization_id = ${org} and d.user_id = m.user_id and d.day >= ${from} and d.day < ${toExclusive}) as "activeDays",
      (select count(*)::int from tasks t
        where t.organization_id = ${org} and t.creator_id = m.user_id and t.created_at >= ${from} and t.created_at < ${toExclusive}) as "tasksCreated",
      (select count(*)::int from tasks t join task_assignees a on a.task_id = t.id and a.user_id = m.user_id
        where t.organization_id = ${org} and t.status = 1 and t.date_status_changed >= ${from} and t.date_status_changed < ${toExclusive}) as "tasksFinished",
      (select count(*)::int from task_messages x
        where x.organization_id = ${org} and x.author_id = m.user_id and x.created_at >= ${from} and x.created_at < ${toExclusive}) as messages,
      (select coalesce(sum(r.hours), 0)::float8 from time_records r
        where r.organization_id = ${org} and r.user_id = m.user_id and r.date >= ${from} and r.date < ${toExclusive}) as "factTime"
    from organization_members m
    where m.organization_id = ${org} and m.deleted_at is null ${query.userId ? sql`and m.user_id = ${query.userId}` : sql``}
    order by m.user_id`,
  );
  return rows.map((r) => ({
    ...r,
    userId: Number(r.userId),
    lastActivityDate: r.lastActivityDate === null ? null : new Date(r.lastActivityDate).toISOString(),
    factTime: Number(r.factTime),
  }));
}
