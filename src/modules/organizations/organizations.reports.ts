import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { authorizeOrganization } from './organizations.policy.js';

export async function entityCounts(ctx: Ctx) {
  authorizeOrganization(ctx.actor, 'readCounts');
  const org = ctx.actor.organizationId;
  const rows = await queryRows<Record<string, number>>(ctx.db, sql`
    select
      (select count(*)::int from spaces where organization_id = ${org}) as spaces,
      0 as projects, 0 as tasks, 0 as "archivedTasks", 0 as reglaments, 0 as pages,
      (select count(*)::int from organization_members where organization_id = ${org} and deleted_at is null) as members,
      (select count(*)::int from organization_members where organization_id = ${org} and deleted_at is null and active) as "activeMembers"`);
  return rows[0]! as { spaces: number; projects: number; tasks: number; archivedTasks: number; reglaments: number; pages: number; members: number; activeMembers: number };
}

export async function userActivity(ctx: Ctx, query: { dateFrom: string; dateTo: string; userId?: number }) {
  authorizeOrganization(ctx.actor, 'readActivity');
  return [] as never[];
}
