import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import type { TestKit } from '../../test/app.js';

/** Every nonzero rollup row of the organization, as text. */
export const rollups = async (t: TestKit, org: number) =>
  (await t.sql<{ row: string }>(sql`
    select concat_ws(' ', 'c', project_id, assignee_id, user_id, stage_id, status, archived, tasks, plan_time::float8) as row from analytics_counts
      where organization_id = ${org} and (tasks <> 0 or plan_time <> 0)
    union all select concat_ws(' ', 'd', project_id, assignee_id, user_id, archived, day, created, finished, rejected, overdue, hours::float8) from analytics_days
      where organization_id = ${org} and (created <> 0 or finished <> 0 or rejected <> 0 or overdue <> 0 or hours <> 0)
    union all select concat_ws(' ', 'f', project_id, stage_id, day, delta, stays_ended, stay_seconds::float8) from analytics_flow
      where organization_id = ${org} and (delta <> 0 or stays_ended <> 0 or stay_seconds <> 0)
    order by 1`)).map((r) => r.row);

/** The rollups as the syncs left them must equal the rollups rebuilt from the rows. */
export async function expectRollupsRebuilt(t: TestKit, org: number) {
  const kept = await rollups(t, org);
  for (const table of ['analytics_counts', 'analytics_days', 'analytics_flow', 'analytics_facts']) {
    await t.sql(sql`delete from ${sql.identifier(table)} where organization_id = ${org}`);
  }
  await t.sql(sql`select analytics_sync(array(select id from tasks where organization_id = ${org}))`);
  expect(await rollups(t, org)).toEqual(kept);
}
