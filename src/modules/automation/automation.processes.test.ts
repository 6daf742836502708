import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { freePort } from '../../test/net.js';
import { exited, startServerProcess } from '../../test/server-process.js';

// Two service processes with their jobs on, on this file's PostgreSQL: a schedule fires once per
// occurrence between them, and a restart after downtime catches up once.
const databaseUrl = process.env.DATABASE_URL;
const t = useTestApp();
const f = factories(t);
const children: ChildProcess[] = [];
const env = { DATABASE_URL: databaseUrl, JOBS_ENABLED: 'true', AUTOMATION_TICK_MS: '100', AUTOMATION_POLL_MS: '100' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stopAll(): Promise<void> {
  await Promise.all(children.splice(0).map((c) => (c.kill('SIGTERM'), exited(c))));
}

afterAll(stopAll, 30_000);

describe.runIf(Boolean(databaseUrl))('automation schedules across two service processes', () => {
  it('creates exactly one task per occurrence, and catches up once after downtime', async () => {
    const { owner, project, stages } = await f.board(1);
    const rule = (
      await t.as(owner).post(`/projects/${project.id}/automation-rules`, {
        name: 'Every second',
        trigger: { type: 'schedule', cron: '* * * * * *', timezone: 'UTC' },
        actions: [{ type: 'create-task', params: { name: 'tick', stageId: stages[0]!.id } }],
      })
    ).json();
    await Promise.all([startServerProcess(await freePort(), env, children), startServerProcess(await freePort(), env, children)]);
    await sleep(3000);
    expect((await t.as(owner).patch(`/projects/${project.id}/automation-rules/${rule.id}`, { enabled: false })).statusCode).toBe(200);
    await sleep(1000);

    const runs = (await t.as(owner).get(`/projects/${project.id}/automation-rules/${rule.id}/runs?limit=200`)).json() as Array<{ status: string; cause: string }>;
    const ticks = await t.sql<{ id: number }>(sql`select id from tasks where project_id = ${project.id} and name = 'tick'`);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    expect(new Set(runs.map((r) => r.cause)).size).toBe(runs.length);
    expect(ticks.length).toBe(runs.length);
    // Occurrences are whole seconds, none taken twice and none created twice.
    for (const r of runs) expect(r.cause).toMatch(/^s:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);

    // Down for three hours over an hourly schedule: one run when a process comes back, not three.
    await stopAll();
    await t.as(owner).patch(`/projects/${project.id}/automation-rules/${rule.id}`, { trigger: { type: 'schedule', cron: '0 0 * * * *', timezone: 'UTC' }, enabled: true });
    await t.sql(sql`update automation_rules set next_run_at = date_trunc('hour', now()) - interval '3 hours' where id = ${rule.id}`);
    const before = ticks.length;
    await Promise.all([startServerProcess(await freePort(), env, children), startServerProcess(await freePort(), env, children)]);
    await sleep(2000);
    const after = await t.sql<{ id: number }>(sql`select id from tasks where project_id = ${project.id} and name = 'tick'`);
    expect(after.length).toBe(before + 1);
    const [saved] = await t.sql<{ next_run_at: Date }>(sql`select next_run_at from automation_rules where id = ${rule.id}`);
    expect(new Date(saved!.next_run_at).getTime()).toBeGreaterThan(Date.now());
  }, 120_000);
});
