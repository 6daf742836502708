import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../app.js';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { expectProblem, useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { deliveriesOf, URL_, world } from './webhooks.fixtures.js';

// Jobs off: what the listener queued stays in the table to be looked at.
const t = useTestApp();
const f = factories(t);

describe('webhooks: queueing', () => {
  it('queues matching events in the transaction of the change, by type and scope', async () => {
    const { owner, space, project, stage, orgHook, spaceHook } = await world(t);
    const all = (await t.as(owner).post('/webhooks', { url: URL_, events: ['task.*'] })).json();
    const projectOnly = (await t.as(owner).post('/webhooks', { url: URL_, events: ['task.created'], projectId: project.id })).json();
    const otherSpace = await f.space(owner, 'Elsewhere');
    const elsewhere = (await t.as(owner).post('/webhooks', { url: URL_, events: ['*'], spaceId: otherSpace.id })).json();
    const disabled = (await t.as(owner).post('/webhooks', { url: URL_, events: ['*'] })).json();
    await t.as(owner).patch(`/webhooks/${disabled.id}`, { enabled: false });

    const task = await f.task(owner, stage.id, { name: 'Hello' });
    const [event] = await t.sql<{ id: number }>(sql`select id from events where organization_id = ${owner.organizationId} and type = 'task.created' and task_id = ${task.id}`);
    for (const hook of [all, projectOnly]) {
      const rows = await t.sql<{ event_id: number; event_type: string; status: string; body: string; next_retry_at: Date }>(
        sql`select event_id, event_type, status, body, next_retry_at from webhook_deliveries where webhook_id = ${hook.id}`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ event_id: event!.id, event_type: 'task.created', status: 'pending' });
      const body = JSON.parse(rows[0]!.body);
      expect(Object.keys(body).sort()).toEqual(['actorId', 'at', 'id', 'organizationId', 'payload', 'projectId', 'spaceId', 'taskId', 'type']);
      expect(body).toMatchObject({ id: event!.id, type: 'task.created', organizationId: owner.organizationId, spaceId: space.id, projectId: project.id, taskId: task.id, actorId: owner.id });
      expect(body.payload.task).toMatchObject({ id: task.id, name: 'Hello' });
    }
    for (const hook of [orgHook, spaceHook, elsewhere, disabled]) expect(await deliveriesOf(t, hook.id)).toEqual([]);
  });

  it('queues nothing when the change rolls back after its events were recorded', async () => {
    const { owner, stage } = await world(t);
    const hook = (await t.as(owner).post('/webhooks', { url: URL_, events: ['*'] })).json();
    // A later listener failing stands for any failure between queueing and commit.
    const failing = async (_db: unknown, events: Array<{ organizationId: number }>) => {
      if (events.some((e) => e.organizationId === owner.organizationId)) throw new Error('failure after the deliveries were queued');
    };
    t.app.events.listeners.push(failing);
    try {
      const res = await t.as(owner).post('/tasks', { name: 'Doomed', stageId: stage.id, order: 0 });
      expectProblem(res, 500, 'INTERNAL');
    } finally {
      t.app.events.listeners.splice(t.app.events.listeners.indexOf(failing), 1);
    }
    expect(await deliveriesOf(t, hook.id)).toEqual([]);
    expect(await t.sql(sql`select id from tasks where organization_id = ${owner.organizationId} and name = 'Doomed'`)).toEqual([]);
  });

  it('never sends personal notification events', async () => {
    const owner = await t.org();
    const hook = (await t.as(owner).post('/webhooks', { url: URL_, events: ['*'] })).json();
    await systemWrite(t.app, owner.organizationId, async (ctx) => {
      emit(ctx, { type: 'notification.created', userId: owner.id, payload: { id: 1 } });
      emit(ctx, { type: 'organization.updated', payload: { id: owner.organizationId } });
    });
    expect((await deliveriesOf(t, hook.id)).map((d) => d.event_type)).toEqual(['organization.updated']);
  });
});

describe('webhooks: shutdown', () => {
  it('stops sending when the app closes, leaving the delivery claimed for a retry', async () => {
    const seen: string[] = [];
    const silent = http.createServer((req) => seen.push(req.headers['webhook-id'] as string));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // A second instance on the same database, this one with its background sender running.
    const other = await buildApp({ ...t.config, logLevel: 'silent', jobsEnabled: true, webhookAllowedHosts: ['127.0.0.1'], webhookTimeoutMs: 20_000 }, { database: t.database });
    try {
      const owner = await t.org();
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
      const [hook] = await t.sql<{ id: number }>(sql`insert into webhooks (organization_id, url, events, secret) values (${owner.organizationId}, ${url}, '{*}', 'a long shared passphrase') returning id`);
      await systemWrite(other, owner.organizationId, async (ctx) => emit(ctx, { type: 'organization.updated', payload: { id: owner.organizationId } }));
      for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(seen).toHaveLength(1);
      const started = Date.now();
      await other.close();
      expect(Date.now() - started).toBeLessThan(5000);
      const [delivery] = await t.sql<{ status: string; attempts: number; next_retry_at: Date }>(sql`select status, attempts, next_retry_at from webhook_deliveries where webhook_id = ${hook!.id}`);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
      expect(new Date(delivery!.next_retry_at).getTime()).toBeGreaterThan(Date.now());
    } finally {
      await other.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('webhooks: SSRF guard', () => {
  const refused = [
    'https://127.0.0.1/hook',
    'https://127.1.2.3/hook',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://224.0.0.1/hook',
    'https://2130706433/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'http://hooks.example.com/in',
    'ftp://hooks.example.com/in',
  ];

  it.each(refused)('refuses %s with 400 WEBHOOK_URL_FORBIDDEN, creating nothing', async (url) => {
    const owner = await t.org();
    const problem = expectProblem(await t.as(owner).post('/webhooks', { url, events: ['*'] }), 400, 'WEBHOOK_URL_FORBIDDEN');
    expect(problem.detail).toMatch(/https|loopback|private|link-local|unspecified|CGNAT|multicast|this machine/);
    expect(await t.sql(sql`select id from webhooks where organization_id = ${owner.organizationId}`)).toEqual([]);
  });

  it('refuses an update to a forbidden URL, keeping the old one', async () => {
    const { owner, orgHook } = await world(t);
    expectProblem(await t.as(owner).patch(`/webhooks/${orgHook.id}`, { url: 'https://169.254.169.254/' }), 400, 'WEBHOOK_URL_FORBIDDEN');
    const [row] = await t.sql<{ url: string }>(sql`select url from webhooks where id = ${orgHook.id}`);
    expect(row!.url).toBe(URL_);
  });

  it('refuses a URL that is not absolute', async () => {
    const owner = await t.org();
    expectProblem(await t.as(owner).post('/webhooks', { url: '/relative', events: ['*'] }), 400, 'VALIDATION_FAILED');
  });
});
