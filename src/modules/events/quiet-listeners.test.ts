import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { listenerRead, type TransactionalListener } from '../../platform/events.js';

const t = useTestApp();
const f = factories(t);

/*
 * A probe beside the real listeners: a read marked quiet that always finds one row when it is sent.
 * What its decide() is handed tells whether the round read the listeners (1) or skipped them (0).
 */
let seen: number[] = [];
const probe: TransactionalListener = async () => listenerRead(sql`select 1 as one`, async (rows) => void seen.push(rows.length), { quiet: true });
beforeEach(() => {
  seen = [];
  t.app.events.addListener(probe);
});
afterEach(() => {
  t.app.events.listeners.splice(t.app.events.listeners.indexOf(probe), 1);
});

/** One create, and what the probe saw of its rounds (a retried transaction runs its rounds again). */
async function create(owner: TestUser, stageId: number, name: string) {
  seen = [];
  const res = await t.as(owner).post('/tasks', { name, stageId });
  return { status: res.statusCode, reads: [...seen] };
}

describe('writes of an organization without webhooks or automation rules', () => {
  it('skip the listener reads once the instance has seen the organization quiet', async () => {
    const { owner, stages } = await f.board(1);
    // Building the board (writes of the organization) already taught the instance; as if it had not:
    t.app.events.quiet.forget(owner.organizationId);
    expect(await create(owner, stages[0]!.id, 'first')).toEqual({ status: 201, reads: [1] });
    expect(t.app.events.quiet.versionOf(owner.organizationId)).toBe(0);
    expect(await create(owner, stages[0]!.id, 'second')).toEqual({ status: 201, reads: [0] });
  });

  it('still queue a delivery for a webhook another instance enabled meanwhile (the write runs again, reading it)', async () => {
    const { owner, stages } = await f.board(1);
    await create(owner, stages[0]!.id, 'seen quiet');
    // Written behind this instance's back, as another instance's request would.
    const [hook] = await t.sql<{ id: number }>(sql`insert into webhooks (organization_id, url, events, secret, enabled)
      values (${owner.organizationId}, 'https://hooks.example.test/q', '{task.*}', 'a long shared passphrase', false) returning id`);
    // Created disabled: the version changed, so the write runs again reading, finds nothing enabled,
    // and the organization is quiet again for the next one.
    expect(await create(owner, stages[0]!.id, 'while disabled')).toEqual({ status: 201, reads: [0, 1] });
    expect(await create(owner, stages[0]!.id, 'still disabled')).toEqual({ status: 201, reads: [0] });
    await t.sql(sql`update webhooks set enabled = true where id = ${hook!.id}`);
    // The record statement's guard failed the first attempt; the transaction ran again with the reads.
    expect(await create(owner, stages[0]!.id, 'after enabling')).toEqual({ status: 201, reads: [0, 1] });
    const deliveries = await t.sql<{ type: string; body: string }>(sql`select event_type as type, body from webhook_deliveries where webhook_id = ${hook!.id}`);
    const created = deliveries.filter((d) => d.type === 'task.created');
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toContain('"name":"after enabling"');
    const [tasks] = await t.sql<{ n: number }>(sql`select count(*)::int as n from tasks where organization_id = ${owner.organizationId} and name = 'after enabling'`);
    expect(tasks!.n).toBe(1);
    // Busy now: every write reads.
    expect(await create(owner, stages[0]!.id, 'busy')).toEqual({ status: 201, reads: [1] });
  });

  it('never trust what a rolled-back write saw: the version it saw is never committed', async () => {
    const { owner, stages } = await f.board(1);
    const [hook] = await t.sql<{ id: number }>(sql`insert into webhooks (organization_id, url, events, secret)
      values (${owner.organizationId}, 'https://hooks.example.test/r', '{task.*}', 'a long shared passphrase') returning id`);
    // A transaction disables the only webhook, sees the organization quiet at the version that set, and rolls back.
    let seenVersion = 0;
    await t.app.database.db
      .transaction(async (tx) => {
        await tx.execute(sql`update webhooks set enabled = false where id = ${hook!.id}`);
        const { rows } = (await tx.execute(sql`select listeners_version::int as v from event_counters where organization_id = ${owner.organizationId}`)) as unknown as { rows: Array<{ v: number }> };
        seenVersion = rows[0]!.v;
        tx.rollback();
      })
      .catch(() => {});
    // What the instance would have learned from that write's record statement.
    t.app.events.quiet.learn(owner.organizationId, seenVersion, false);
    expect(await create(owner, stages[0]!.id, 'after the rollback')).toEqual({ status: 201, reads: [0, 1] });
    const [n] = await t.sql<{ n: number }>(sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${hook!.id} and body like '%after the rollback%'`);
    expect(n!.n).toBe(1);
  });

  it('move the version past any the organization had, a restored one too', async () => {
    const { owner } = await f.board(1);
    // As a restore leaves it: versions from another instance's sequence, larger than this one's.
    await t.sql(sql`update event_counters set listeners_version = 1000000 where organization_id = ${owner.organizationId}`);
    await t.sql(sql`insert into webhooks (organization_id, url, events, secret) values (${owner.organizationId}, 'https://hooks.example.test/v', '{*}', 'a long shared passphrase')`);
    const [after] = await t.sql<{ v: number; next: number }>(sql`select listeners_version::int as v, nextval('listeners_version_seq')::int as next
      from event_counters where organization_id = ${owner.organizationId}`);
    expect(after!.v).toBe(1000001);
    expect(after!.next).toBeGreaterThan(1000001);
  });

  it('still queue a run for an automation rule another instance created meanwhile', async () => {
    const { owner, project, stages } = await f.board(2);
    await create(owner, stages[0]!.id, 'seen quiet');
    const [rule] = await t.sql<{ id: number }>(sql`insert into automation_rules (organization_id, project_id, name, trigger_type, trigger, conditions, actions)
      values (${owner.organizationId}, ${project.id}, 'On create', 'task.created', ${JSON.stringify({ type: 'task.created' })}::jsonb, '[]'::jsonb,
        ${JSON.stringify([{ type: 'set-importance', params: { importance: 2 } }])}::jsonb) returning id`);
    expect(await create(owner, stages[0]!.id, 'after the rule')).toEqual({ status: 201, reads: [0, 1] });
    const [runs] = await t.sql<{ n: number }>(sql`select count(*)::int as n from automation_runs where rule_id = ${rule!.id}`);
    expect(runs!.n).toBe(1);
  });
});
