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
});
