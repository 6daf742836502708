import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { runJob } from '../../platform/jobs.js';
import type { TransactionalListener } from '../../platform/events.js';
import { eventually, listen, WsClient } from './realtime.fixtures.js';

const t = useTestApp();
const f = factories(t);
const onPostgres = Boolean(process.env.DATABASE_URL);

async function counts(org: number) {
  const [row] = await t.sql<{ events: number; head: number; notifications: number; deliveries: number; tasks: number }>(sql`
    select (select count(*)::int from events where organization_id = ${org}) as events,
           (select coalesce(max(last_id), 0)::int from event_counters where organization_id = ${org}) as head,
           (select count(*)::int from notifications where organization_id = ${org}) as notifications,
           (select count(*)::int from webhook_deliveries where organization_id = ${org}) as deliveries,
           (select count(*)::int from tasks where organization_id = ${org}) as tasks`);
  return row!;
}

describe('the change log', () => {
  it('numbers each organization’s events 1, 2, 3… without gaps, in commit order', async () => {
    const { owner, stages } = await f.board(1);
    for (let i = 0; i < 5; i++) await f.task(owner, stages[0]!.id, { name: `t${i}` });
    // Concurrent writers of one organization still get consecutive ids.
    await Promise.all(Array.from({ length: 8 }, (_, i) => f.task(owner, stages[0]!.id, { name: `c${i}` })));
    const rows = await t.sql<{ id: number }>(sql`select id::int as id from events where organization_id = ${owner.organizationId} order by id`);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    expect((await counts(owner.organizationId)).head).toBe(rows.length);
  });

  it('a change rolled back by an error leaves no event, no notification and no webhook delivery', async () => {
    const { owner, space, stages } = await f.board(1);
    const assignee = await f.spaceMember(owner, space.id, 'member');
    // A webhook that would take every event, so a queued delivery would show.
    await t.sql(sql`insert into webhooks (organization_id, url, events, secret, creator_id)
                    values (${owner.organizationId}, 'https://hooks.example.test/x', '{*}', 'whsec_dGVzdA==', ${owner.id})`);
    const client = await WsClient.open(await listen(t.app), owner.headers);
    await client.ready();
    await client.request({ type: 'subscribe' }, 'subscribed');
    const before = await counts(owner.organizationId);

    // The last listener of the transaction fails after the task, its history, its events, the
    // assignee's notification and the webhook delivery were all written: everything must go.
    const boom: TransactionalListener = async (_db, events) => {
      if (!events.some((e) => e.type === 'task.created' && JSON.stringify(e.payload).includes('"boom"'))) return;
      // It fails in its write, which runs after the others' writes.
      return async () => {
        throw new Error('boom');
      };
    };
    t.app.events.addListener(boom);
    try {
      const res = await t.as(owner).post('/tasks', { name: 'boom', stageId: stages[0]!.id, order: 0, responsibleUserId: [assignee.id] });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ status: 500, requestId: expect.any(String) });
    } finally {
      t.app.events.listeners.splice(t.app.events.listeners.indexOf(boom), 1);
    }
    await t.app.realtime.idle();
    expect(await counts(owner.organizationId)).toEqual(before);
    expect(client.events).toEqual([]);

    // The same request without the failure commits all of it, and the client hears of it.
    await f.task(owner, stages[0]!.id, { name: 'fine', responsibleUserId: [assignee.id] });
    const after = await counts(owner.organizationId);
    expect(after.tasks).toBe(before.tasks + 1);
    expect(after.head).toBe(before.head + after.events - before.events);
    expect(after.deliveries).toBeGreaterThan(before.deliveries);
    await eventually(() => expect(client.events.map((e) => e.type)).toContain('task.created'));
    client.close();
  });
});

describe('change log retention', () => {
  it('events.prune removes the events older than the retention and keeps the rest', async () => {
    const { owner, stages } = await f.board(1);
    await f.task(owner, stages[0]!.id, { name: 'old' });
    await f.task(owner, stages[0]!.id, { name: 'recent' });
    const org = owner.organizationId;
    const all = await t.sql<{ id: number }>(sql`select id::int as id from events where organization_id = ${org} order by id`);
    const old = all.slice(0, -1).map((e) => e.id);
    await t.sql(sql`update events set at = now() - interval '1000 days' where organization_id = ${org} and id = any(${`{${old.join(',')}}`}::bigint[])`);
    expect(await runJob(t.app, 'events.prune', { force: true })).toBe(true);
    const left = await t.sql<{ id: number }>(sql`select id::int as id from events where organization_id = ${org} order by id`);
    expect(left.map((e) => e.id)).toEqual([all.at(-1)!.id]);
  });
});

describe.runIf(onPostgres)('two service instances on one PostgreSQL', () => {
  let other: FastifyInstance;
  beforeAll(async () => {
    // Its own pool and LISTEN connection; a sweep too slow to matter, so only NOTIFY can wake it.
    other = await buildApp({ ...t.config, realtimeHeartbeatMs: 600_000 });
  });
  afterAll(async () => {
    await other?.close();
  });

  it('an event written through one reaches a client of the other', async () => {
    const { owner, stages } = await f.board(1);
    const client = await WsClient.open(await listen(other), owner.headers);
    await client.ready();
    await client.request({ type: 'subscribe', types: ['task.created'] }, 'subscribed');
    const task = await f.task(owner, stages[0]!.id, { name: 'across' });
    await eventually(() => expect(client.events.map((e) => e.taskId)).toEqual([task.id]));
    client.close();
  });

  it('the due-date scheduler fires once across both, not twice', async () => {
    const { owner, space, stages } = await f.board(1);
    const assignee = await f.spaceMember(owner, space.id, 'member');
    const past = new Date(Date.now() - 3_600_000).toISOString();
    await f.task(owner, stages[0]!.id, { name: 'late', dateEnd: past, responsibleUserId: [assignee.id] });
    await t.sql(sql`delete from scheduled_jobs where name = 'notifications.due'`);
    const ran = await Promise.all([runJob(t.app, 'notifications.due'), runJob(other, 'notifications.due')]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    // A second period on the other instance finds the notification already there.
    await runJob(other, 'notifications.due', { force: true });
    const rows = await t.sql<{ type: string; userId: number }>(
      sql`select type, user_id::int as "userId" from notifications where organization_id = ${owner.organizationId} and type = 'task.due'`,
    );
    expect(rows).toEqual([{ type: 'task.due', userId: assignee.id }]);
  });
});
