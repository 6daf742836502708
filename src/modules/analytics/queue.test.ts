import { describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../app.js';
import { useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { expectRollupsRebuilt } from './analytics.fixtures.js';
import { drainOrganization } from './analytics.queue.js';

/**
 * The rollups are applied from the queue after the writes commit (migration 0016): writes leave
 * the rollup rows alone, drains of one organization running at once still sum to a rebuild, a
 * queue left by a crash is applied at start-up, and a report counts a write made just before it.
 * Test apps run no jobs, so nothing drains here unless a test asks.
 */
const t = useTestApp();
const f = factories(t);

const queued = async (org: number) => Number((await t.sql<{ n: number }>(sql`select count(*)::int as n from analytics_dirty where organization_id = ${org}`))[0]!.n);
const ledger = async (org: number) => Number((await t.sql<{ n: number }>(sql`select count(*)::int as n from analytics_facts where organization_id = ${org}`))[0]!.n);

/** A board with tasks created, moved, finished, timed and deleted: a queue with duplicates and a deleted task in it. */
async function busyBoard() {
  const b = await f.board(3);
  const org = b.owner.organizationId;
  const release = await holdDrains(org);
  try {
    const stages = b.stages.map((s) => s.id as number);
    const tasks: number[] = [];
    for (let i = 0; i < 6; i++) tasks.push((await f.task(b.owner, stages[i % 3]!, { name: `t${i}`, responsibleUserId: [b.owner.id] })).id as number);
    await work(b.owner, stages, tasks);
    expect(await queued(org)).toBeGreaterThan(20);
    expect(await ledger(org)).toBe(0);
    return { ...b, org, stages, tasks };
  } finally {
    await release();
  }
}

/**
 * On PostgreSQL the test files share one database, and an app another file starts with jobs sweeps
 * every organization's queue: while the backlog is built and checked, this organization's drain
 * lock (analytics_drain's advisory lock) is held on a connection of its own.
 */
async function holdDrains(org: number): Promise<() => Promise<void>> {
  if (t.database.kind !== 'postgres') return async () => {};
  let release!: () => void;
  let locked!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const holding = new Promise<void>((r) => (locked = r));
  const done = t.database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('analytics_drain', ${org}::bigint))`);
    locked();
    await released;
  });
  await holding;
  return async () => {
    release();
    await done;
  };
}

/** Drains in batches of three queued rows until a drain finds none: drains that interleave. */
async function drainInSmallBatches(org: number) {
  while (Number((await t.sql<{ n: number }>(sql`select analytics_drain(${org}::bigint, 3) as n`))[0]!.n) > 0);
}

async function work(owner: TestUser, stages: number[], tasks: number[]) {
  for (const [i, task] of tasks.entries()) {
    await t.as(owner).post('/tasks/move', { taskIds: [task], stageId: stages[(i + 1) % stages.length] });
    if (i % 2 === 0) await t.as(owner).patch(`/tasks/${task}/status`, { status: 1 });
    if (i % 3 === 0) await t.as(owner).post('/time-records', { taskId: task, hours: 2, date: '2026-03-03' });
  }
  await t.as(owner).delete(`/tasks/${tasks.at(-1)}`);
}

describe('the analytics queue', () => {
  it('leaves the rollups to the drain: a write queues its tasks, a report right after counts it', async () => {
    const b = await f.board(2);
    const org = b.owner.organizationId;
    await t.as(b.owner).get(`/analytics/projects/${b.project.id}/task-report`);
    const task = (await f.task(b.owner, b.stages[0]!.id as number, { name: 'fresh' })).id as number;
    expect(await queued(org)).toBeGreaterThan(0);
    expect((await t.sql(sql`select 1 from analytics_facts where task_id = ${task}`)).length).toBe(0);
    const report = (await t.as(b.owner).get(`/analytics/projects/${b.project.id}/task-report`)).json();
    expect(report.total).toBe(1);
    expect(await queued(org)).toBe(0);
  });

  it('queues a task once per table its write touched, not again for the facts those tables\' triggers write (migration 0024)', async () => {
    const b = await f.board(2);
    const org = b.owner.organizationId;
    const [a, z] = b.stages.map((s) => s.id as number);
    const release = await holdDrains(org);
    try {
      const rows = async () => t.sql<{ task_id: number }>(sql`select task_id from analytics_dirty where organization_id = ${org} order by id`);
      const task = (await f.task(b.owner, a!, { name: 'counted', responsibleUserId: [b.owner.id] })).id as number;
      // The task, its placement, its assignee; not its first status nor its first stay.
      expect((await rows()).map((r) => Number(r.task_id))).toEqual([task, task, task]);
      expect((await t.as(b.owner).post('/tasks/move', { taskIds: [task], stageId: z })).statusCode).toBe(200);
      expect((await rows()).length).toBe(4);
      // A fact written directly (a load, a correction) still queues its task.
      await t.sql(sql`update task_stage_stays set entered_at = entered_at - interval '1 day' where task_id = ${task} and left_at is not null`);
      await t.sql(sql`insert into task_status_changes (organization_id, task_id, status, at) values (${org}, ${task}, 1, now())`);
      expect((await rows()).length).toBe(6);
    } finally {
      await release();
    }
    await drainOrganization(t.database.db, org);
    expect(await queued(org)).toBe(0);
    await expectRollupsRebuilt(t, org);
  });

  it('rewrites only the ledger rows a change alters: a task moved many times keeps its other stays as they were', async () => {
    const b = await f.board(2);
    const org = b.owner.organizationId;
    const [a, z] = b.stages.map((s) => s.id as number);
    const task = (await f.task(b.owner, a!, { name: 'travels', responsibleUserId: [b.owner.id] })).id as number;
    for (let i = 0; i < 8; i++) expect((await t.as(b.owner).post('/tasks/move', { taskIds: [task], stageId: i % 2 === 0 ? z : a })).statusCode).toBe(200);
    await drainOrganization(t.database.db, org);
    const rows = async () => t.sql<{ rid: string; kind: number }>(sql`select ctid::text as rid, kind from analytics_facts where task_id = ${task}`);
    const before = await rows();
    await t.as(b.owner).post('/tasks/move', { taskIds: [task], stageId: z });
    await drainOrganization(t.database.db, org);
    const after = await rows();
    // The move changes the task's column (kind 0) and closes its open stay (kind 6, and a kind 7 of
    // the stay's length appears), and opens a stay: two rows go, four come, the rest stay put.
    const kinds = (list: typeof before, other: typeof before) => list.filter((r) => !other.some((o) => o.rid === r.rid)).map((r) => Number(r.kind)).sort();
    expect(before.length).toBeGreaterThan(15);
    expect(kinds(before, after)).toEqual([0, 6]);
    expect(kinds(after, before)).toEqual([0, 6, 6, 7]);
    await expectRollupsRebuilt(t, org);
  });

  it('runs one drain of an organization at a time: the second waits, then takes what is left', async () => {
    const { org } = await busyBoard();
    // The first drain takes the three oldest rows and stays open; the second, meanwhile, must neither
    // sync those tasks on top of it nor stop early (its batch would be the rows the first one holds).
    let second: Promise<void> | null = null;
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`select analytics_drain(${org}::bigint, 3)`);
      second = drainInSmallBatches(org);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await second;
    expect(await queued(org)).toBe(0);
    await expectRollupsRebuilt(t, org);
  });

  it('sums to a rebuild when several drains of one organization run at once, writes going on', async () => {
    const b = await busyBoard();
    const org = b.org;
    const drains = Array.from({ length: 5 }, () => drainInSmallBatches(org));
    await Promise.all([...drains, work(b.owner, b.stages, b.tasks.slice(0, 3))]);
    await drainOrganization(t.database.db, org);
    expect(await queued(org)).toBe(0);
    expect(await ledger(org)).toBeGreaterThan(0);
    await expectRollupsRebuilt(t, org);
  });

  it('applies at start-up what a crash left queued between a commit and its drain', async () => {
    const b = await busyBoard();
    const org = b.org;
    // Another instance starts on the same database with jobs: its start-up sweep, not a poll (10 s) or a commit, applies the queue.
    const other = await buildApp({ ...t.config, logLevel: 'silent', jobsEnabled: true }, { database: t.database });
    try {
      await vi.waitFor(async () => expect(await queued(org)).toBe(0), { timeout: 8000, interval: 100 });
    } finally {
      await other.close();
    }
    const [counts] = await t.sql<{ n: number }>(sql`select sum(tasks)::int as n from analytics_counts where organization_id = ${org} and assignee_id = 0 and user_id = 0`);
    expect(counts!.n).toBe(b.tasks.length - 1);
    await expectRollupsRebuilt(t, org);
  });

  it('drains writes that keep coming on an instance with jobs, those committed during a round included', async () => {
    const app = await buildApp({ ...t.config, logLevel: 'silent', jobsEnabled: true }, { database: t.database });
    try {
      const b = await f.board(1);
      const org = b.owner.organizationId;
      const stageId = b.stages[0]!.id as number;
      // Writes for about three debounce periods: rounds start while commits go on.
      const until = Date.now() + 3000;
      let created = 0;
      while (Date.now() < until) {
        expect((await app.inject({ method: 'POST', url: '/tasks', headers: b.owner.headers, payload: { name: `t${created}`, stageId } })).statusCode).toBe(201);
        created++;
      }
      await vi.waitFor(async () => expect(await queued(org)).toBe(0), { timeout: 8000, interval: 100 });
      const [counts] = await t.sql<{ n: number }>(sql`select sum(tasks)::int as n from analytics_counts where organization_id = ${org} and assignee_id = 0 and user_id = 0`);
      expect(counts!.n).toBe(created);
      await expectRollupsRebuilt(t, org);
    } finally {
      await app.close();
    }
  });
});
