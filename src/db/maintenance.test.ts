import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../test/app.js';
import { boardWithRoles } from '../modules/tasks/tasks.fixtures.js';
import { runJob } from '../platform/jobs.js';

const t = useTestApp();
const pendingPagesMerged = async () => {
  const [row] = await t.sql<{ n: number }>(sql`select gin_clean_pending_list('tasks_search_idx'::regclass) as n`);
  return Number(row!.n);
};

describe('embedded database maintenance (PGlite only: PostgreSQL has autovacuum)', () => {
  it.runIf(process.env.DATABASE_URL ? false : true)('merges the search indexes\' pending lists, and search still finds what was in them', async () => {
    const b = await boardWithRoles(t);
    await b.f.task(b.owner, b.stageIds[0]!, { name: 'quokka one' });
    // The premise: a new task's words wait in the pending list, which every search reads whole.
    expect(await pendingPagesMerged()).toBeGreaterThan(0);

    const second = await b.f.task(b.owner, b.stageIds[0]!, { name: 'quokka two' });
    expect(await runJob(t.app, 'db.gin-clean')).toBe(true);
    expect(await pendingPagesMerged()).toBe(0);

    const res = await t.as(b.reader).get('/tasks/search?q=quokka');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect((res.json() as Array<{ id: number }>)[0]!.id).toBe(second.id);
  });

  it.runIf(process.env.DATABASE_URL ? false : true)('vacuums and analyzes the tables autovacuum would, and only those', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!, { name: 'churn' });
    // 1,100 history rows: past autovacuum's 1,000 inserted rows + 20 % of the table since its last vacuum.
    await t.sql(sql`insert into task_history (organization_id, task_id, user_id, type, state, project_name, task_name)
                    select ${b.owner.organizationId}, ${task.id}, ${b.owner.id}, 13, 'set the planned time', 'Project', 'churn' from generate_series(1, 1100)`);
    await t.sql(sql`update tasks set plan_time = 99 where id = ${task.id}`);
    await t.sql(sql`select pg_stat_force_next_flush()`);
    const stats = async (table: string) => {
      const [row] = await t.sql<{ inserted: number; vacuumed: boolean }>(
        sql`select n_ins_since_vacuum::int as inserted, last_vacuum is not null as vacuumed from pg_stat_user_tables where relname = ${table}`,
      );
      return row!;
    };
    expect((await stats('task_history')).inserted).toBeGreaterThan(1100);

    expect(await runJob(t.app, 'db.vacuum')).toBe(true);
    expect(await stats('task_history')).toEqual({ inserted: 0, vacuumed: true });
    // A table nothing was written to is left alone.
    expect((await stats('partner_link_visits')).vacuumed).toBe(false);

    const res = await t.as(b.reader).get(`/tasks/${task.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: task.id, planTime: 99 });
  });
});
