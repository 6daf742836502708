import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ownDatabase, useTestApp } from '../test/app.js';
import { DurableQueue, JobQueue } from './queue.js';

// Tables of this file's own, in a database of its own: the shapes QueueShape describes, not the app's queues.
const t = useTestApp(ownDatabase('queue'));
const db = () => t.app.database.db;
const HOUR = 3600_000;

beforeAll(async () => {
  await t.sql(sql`create table q_items (id bigserial primary key, state text not null default 'pending', attempts int not null default 0,
    due_at timestamptz default now(), problem text, note text not null default '', closed boolean not null default false, updated_at timestamptz not null default now())`);
  await t.sql(sql`create table q_keys (key uuid primary key, attempts int not null default 0, next_attempt_at timestamptz not null default now(), last_error text)`);
  await t.sql(sql`create table q_jobs (id bigserial primary key, status text not null default 'queued', heartbeat_at timestamptz, updated_at timestamptz not null default now())`);
});

const item = async (due = sql`now()`) => (await t.sql<{ id: number }>(sql`insert into q_items (due_at) values (${due}) returning id::int`))[0]!.id;
const row = async (id: number) =>
  (await t.sql<{ state: string; attempts: number; due: number | null; problem: string | null; note: string; closed: boolean }>(
    sql`select state, attempts, extract(epoch from due_at - now())::int as due, problem, note, closed from q_items where id = ${id}`,
  ))[0]!;
const makeDue = (id: number) => t.sql(sql`update q_items set due_at = now() where id = ${id}`);
const shape = { table: 'q_items', status: 'state', due: 'due_at', error: 'problem', done: 'ok' } as const;

describe('DurableQueue: an attempt counted when recorded (countAt settle)', () => {
  const queue = new DurableQueue({ ...shape, countAt: 'settle' }, { leaseMs: HOUR, retrySchedule: [60_000] });

  it('does not count a claim that never settled; the next claim is the same attempt, and the dead one is stale', async () => {
    const id = await item();
    const [dead] = await queue.claim(db(), 1, sql`id = ${id}`);
    expect(dead).toEqual({ id, attempt: 1 });
    expect(await row(id)).toMatchObject({ attempts: 0, due: 3600 });
    expect(await queue.claim(db(), 1, sql`id = ${id}`)).toEqual([]);
    await makeDue(id);
    const [live] = await queue.claim(db(), 1, sql`id = ${id}`);
    expect(live).toEqual({ id, attempt: 1 });
    expect(await queue.fail(db(), live!, 'busy', true, { each: sql`, note = note || 'e'`, final: sql`, closed = true` })).toBe('retrying');
    expect(await row(id)).toMatchObject({ state: 'pending', attempts: 1, due: 60, problem: 'busy', note: 'e', closed: false });
    expect(await queue.succeed(db(), dead!)).toBe('stale');

    await makeDue(id);
    const [second] = await queue.claim(db(), 1, sql`id = ${id}`);
    expect(second!.attempt).toBe(2);
    expect(await queue.fail(db(), second!, 'still busy', true, { each: sql`, note = note || 'e'`, final: sql`, closed = true` })).toBe('failed');
    expect(await row(id)).toMatchObject({ state: 'failed', attempts: 2, due: null, problem: 'still busy', note: 'ee', closed: true });
  });

  it('takes a named row before it is due with anyTime', async () => {
    const id = await item(sql`now() + interval '1 day'`);
    expect(await queue.claim(db(), 1, sql`id = ${id}`)).toEqual([]);
    const [claim] = await queue.claim(db(), 1, sql`id = ${id}`, { anyTime: true });
    expect(await queue.succeed(db(), claim!, { each: sql`, note = 'sent'` })).toBe('done');
    expect(await row(id)).toMatchObject({ state: 'ok', attempts: 1, due: null, problem: null, note: 'sent' });
  });
});

describe('DurableQueue: release and a schedule function', () => {
  const queue = new DurableQueue(shape, { leaseMs: HOUR, retrySchedule: (n) => (n >= 3 ? undefined : 2 ** n * 1000) });

  it('gives an attempt back with release, and fails once the function says no more', async () => {
    const id = await item();
    const [first] = await queue.claim(db(), 1, sql`id = ${id}`);
    expect(first!.attempt).toBe(1);
    expect(await queue.release(db(), first!, 30_000, 'slow down')).toBe('retrying');
    expect(await row(id)).toMatchObject({ state: 'pending', attempts: 0, due: 30, problem: 'slow down' });
    expect(await queue.succeed(db(), first!)).toBe('stale');
    const waits: Array<number | null> = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await makeDue(id);
      const [claim] = await queue.claim(db(), 1, sql`id = ${id}`);
      expect(claim!.attempt).toBe(attempt);
      await queue.fail(db(), claim!, `no ${attempt}`, true);
      waits.push((await row(id)).due);
    }
    expect(waits).toEqual([2, 4, null]);
    expect(await row(id)).toMatchObject({ state: 'failed', attempts: 3 });
  });

  it('a permanent failure fails at once, whatever is left of the schedule', async () => {
    const id = await item();
    const [claim] = await queue.claim(db(), 1, sql`id = ${id}`);
    expect(await queue.fail(db(), claim!, 'refused', false)).toBe('failed');
  });
});

describe('DurableQueue: a table without status or updated_at, keyed by a uuid', () => {
  const queue = new DurableQueue<string>(
    { table: 'q_keys', key: 'key', keyType: 'text', status: null, updatedAt: null, countAt: 'settle' },
    { leaseMs: HOUR, retrySchedule: (n) => Math.min(600, 5 * 2 ** (n - 1)) * 1000 },
  );
  const key = '0b6c2f3e-6a43-4a8e-9c1e-2f4a1d9e7b10';

  it('retries for ever and deletes the row once done', async () => {
    await t.sql(sql`insert into q_keys (key) values (${key})`);
    const [first] = await queue.claim(db(), 10);
    expect(first).toEqual({ id: key, attempt: 1 });
    expect(await queue.fail(db(), first!, 'down', true)).toBe('retrying');
    await t.sql(sql`update q_keys set attempts = 20`);
    const [late] = await queue.claim(db(), 10, sql`true`, { anyTime: true });
    expect(await queue.fail(db(), late!, 'down', true)).toBe('retrying');
    const [state] = await t.sql<{ attempts: number; wait: number }>(sql`select attempts, extract(epoch from next_attempt_at - now())::int as wait from q_keys`);
    expect(state).toEqual({ attempts: 21, wait: 600 });
    const [last] = await queue.claim(db(), 10, sql`key = ${key}`, { anyTime: true });
    await expect(queue.fail(db(), last!, 'gone', false)).rejects.toThrow(/retry for ever/);
    expect(await queue.succeed(db(), last!)).toBe('done');
    expect(await t.sql(sql`select key from q_keys`)).toEqual([]);
  });
});

describe('DurableQueue: claim order', () => {
  it('takes the longest due first, or the lowest key with order: key', async () => {
    const older = await item(sql`now() - interval '1 minute'`);
    const longerDue = await item(sql`now() - interval '1 hour'`);
    const ours = sql`id in (${older}, ${longerDue})`;
    const byDue = new DurableQueue(shape, { leaseMs: HOUR, retrySchedule: [] });
    const byKey = new DurableQueue({ ...shape, order: 'key' }, { leaseMs: HOUR, retrySchedule: [] });
    const [first] = await byKey.claim(db(), 1, ours, { anyTime: true });
    expect(first!.id).toBe(older);
    await t.sql(sql`update q_items set due_at = now() - interval '1 minute' where id = ${older}`);
    const [second] = await byDue.claim(db(), 1, ours);
    expect(second!.id).toBe(longerDue);
  });
});

describe('DurableQueue: a NOT NULL due column', () => {
  it('keeps the due time of a settled row', async () => {
    const queue = new DurableQueue({ ...shape, clearDue: false }, { leaseMs: HOUR, retrySchedule: [] });
    const id = await item();
    const [claim] = await queue.claim(db(), 1, sql`id = ${id}`);
    await queue.succeed(db(), claim!);
    expect(await row(id)).toMatchObject({ state: 'ok', due: 3600 });
  });
});

describe('JobQueue', () => {
  it('takes the oldest queued job once; a silent running job is lost, and retaken only when asked', async () => {
    const [a, b, c] = (await t.sql<{ id: number }>(sql`insert into q_jobs (status, heartbeat_at) values
      ('running', now() - interval '1 hour'), ('queued', null), ('running', now()) returning id::int`)).map((r) => r.id);
    const jobs = new JobQueue('q_jobs', { lostAfterMs: 600_000 });
    expect(await t.sql(sql`select id::int from q_jobs where ${jobs.lost}`)).toEqual([{ id: a }]);
    expect(await jobs.claim(db())).toBe(b);
    expect(await jobs.claim(db())).toBeNull();
    const retaking = new JobQueue('q_jobs', { lostAfterMs: 600_000, retakeLost: true });
    expect(await retaking.claim(db())).toBe(a);
    expect(await retaking.claim(db())).toBeNull();
    await t.sql(sql`update q_jobs set heartbeat_at = now() - interval '1 hour' where id = ${c}`);
    await jobs.beat(db(), c!);
    expect(await t.sql(sql`select id::int from q_jobs where ${jobs.lost}`)).toEqual([]);
  });
});
