import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../app.js';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { runJob } from '../../platform/jobs.js';
import { WEBHOOK_PRUNE_JOB } from './webhooks.jobs.js';

// No background sender here (jobs off): deliveries stay as queued, so refused requests can be
// proven to change nothing. Sending is tested in webhooks.delivery.test.ts.
const t = useTestApp();
const f = factories(t);

// A public name that does not resolve in the sandbox: accepted at create, checked again at delivery.
const URL_ = 'https://hooks.example.com/in';
// Events that none of these worlds fire, so nothing is ever queued behind a test's back.
const QUIET = ['reglament.question.deleted'];
const WEBHOOK_KEYS = ['createdAt', 'creatorId', 'disabledReason', 'enabled', 'events', 'failureCount', 'id', 'lastDeliveryAt', 'projectId', 'secretSet', 'spaceId', 'updatedAt', 'url'];
const DELIVERY_KEYS = ['attemptLog', 'attempts', 'createdAt', 'durationMs', 'error', 'eventId', 'eventType', 'id', 'nextRetryAt', 'responseStatus', 'status', 'updatedAt', 'webhookId'];

async function world() {
  const { owner, space, project, stages } = await f.board(1);
  const spaceAdmin = await f.spaceMember(owner, space.id, 'admin');
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const orgHook = (await t.as(owner).post('/webhooks', { url: URL_, events: QUIET })).json();
  const spaceHook = (await t.as(spaceAdmin).post('/webhooks', { url: `${URL_}/space`, events: QUIET, spaceId: space.id })).json();
  return { owner, space, project, stage: stages[0]!, spaceAdmin, editor, orgHook, spaceHook };
}

const deliveriesOf = (webhookId: number) =>
  t.sql<{ status: string; event_type: string; next_retry_at: Date | null }>(sql`select status, event_type, next_retry_at from webhook_deliveries where webhook_id = ${webhookId} order by id`);

async function queueDelivery(user: TestUser, webhookId: number, status: string, ageDays = 0) {
  await t.sql(sql`insert into webhook_deliveries (organization_id, webhook_id, event_id, event_type, body, status, attempts, next_retry_at, created_at)
    values (${user.organizationId}, ${webhookId}, 1, 'task.created', '{}', ${status}, ${status === 'pending' ? 0 : 1},
            ${status === 'pending' ? sql`now() + interval '1 hour'` : null}, now() - make_interval(days => ${ageDays}))`);
}

describe('webhooks: create, list, update, delete', () => {
  it('creates an organization-wide webhook and shows its generated secret once', async () => {
    const owner = await t.org();
    const res = await t.as(owner).post('/webhooks', { url: URL_, events: ['task.*', 'label.created'] });
    expect(res.statusCode).toBe(201);
    const hook = res.json();
    expect(Object.keys(hook).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(hook).toMatchObject({ url: URL_, events: ['task.*', 'label.created'], spaceId: null, projectId: null, enabled: true, secretSet: true, failureCount: 0, lastDeliveryAt: null, disabledReason: null, creatorId: owner.id });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);

    const listed = await t.as(owner).get('/webhooks');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([Object.fromEntries(Object.entries(hook).filter(([k]) => k !== 'secret'))]);
    expect(listed.headers['x-total-count']).toBe('1');
  });

  it('keeps a secret the caller chose, and refuses a malformed whsec_ one', async () => {
    const owner = await t.org();
    const chosen = 'a long shared passphrase';
    const res = await t.as(owner).post('/webhooks', { url: URL_, events: ['*'], secret: chosen });
    expect(res.statusCode).toBe(201);
    expect(res.json().secret).toBe(chosen);
    expectProblem(await t.as(owner).post('/webhooks', { url: URL_, events: ['*'], secret: 'whsec_not*base64*at*all' }), 400, 'WEBHOOK_SECRET_INVALID');
    expectProblem(await t.as(owner).post('/webhooks', { url: URL_, events: ['task.nothing'] }), 400, 'VALIDATION_FAILED');
  });

  it('lets a space admin manage webhooks of the space and its projects, never organization-wide ones', async () => {
    const { owner, space, project, spaceAdmin, editor, orgHook, spaceHook } = await world();
    expect(spaceHook).toMatchObject({ spaceId: space.id, projectId: null, creatorId: spaceAdmin.id });

    const projectHook = await t.as(spaceAdmin).post('/webhooks', { url: URL_, events: ['task.created'], projectId: project.id });
    expect(projectHook.statusCode).toBe(201);
    expect(projectHook.json()).toMatchObject({ spaceId: space.id, projectId: project.id });

    expectProblem(await t.as(spaceAdmin).post('/webhooks', { url: URL_, events: ['*'] }), 403, 'FORBIDDEN');
    const otherSpace = await f.space(owner, 'Other');
    expectProblem(await t.as(owner).post('/webhooks', { url: URL_, events: ['*'], spaceId: otherSpace.id, projectId: project.id }), 400, 'BAD_REQUEST');
    expectProblem(await t.as(spaceAdmin).patch(`/webhooks/${orgHook.id}`, { enabled: false }), 403, 'FORBIDDEN');

    // Each sees what it manages; the organization owner sees everything.
    const ids = (res: { json(): Array<{ id: number }> }) => res.json().map((w) => w.id);
    expect(ids(await t.as(spaceAdmin).get('/webhooks'))).toEqual([spaceHook.id, projectHook.json().id]);
    expect(ids(await t.as(owner).get('/webhooks'))).toEqual([orgHook.id, spaceHook.id, projectHook.json().id]);
    expect(ids(await t.as(owner).get(`/webhooks?spaceId=${space.id}`))).toEqual([spaceHook.id, projectHook.json().id]);
    expect(ids(await t.as(editor).get('/webhooks'))).toEqual([]);
    const paged = await t.as(owner).get('/webhooks?limit=1&offset=1');
    expect(ids(paged)).toEqual([spaceHook.id]);
    expect(paged.headers['x-total-count']).toBe('3');
    expect(paged.headers.link).toContain('offset=2');
  });

  it('updates url, events and secret without ever showing the secret again', async () => {
    const { spaceAdmin, spaceHook } = await world();
    const res = await t.as(spaceAdmin).patch(`/webhooks/${spaceHook.id}`, { url: 'https://other.example.com/x', events: ['task.*'], secret: 'another long passphrase' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.json()).toMatchObject({ url: 'https://other.example.com/x', events: ['task.*'], secretSet: true });
    const [row] = await t.sql<{ secret: string }>(sql`select secret from webhooks where id = ${spaceHook.id}`);
    expect(row!.secret).toBe('another long passphrase');
  });

  it('parks pending deliveries while disabled and resumes them, failure count cleared, when enabled again', async () => {
    const { owner, orgHook } = await world();
    await queueDelivery(owner, orgHook.id, 'pending');
    await t.sql(sql`update webhooks set failure_count = 3 where id = ${orgHook.id}`);

    const off = await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, failureCount: 3 });
    expect((await deliveriesOf(orgHook.id))[0]!.next_retry_at).toBeNull();

    const on = await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: true });
    expect(on.json()).toMatchObject({ enabled: true, failureCount: 0, disabledReason: null });
    const [delivery] = await deliveriesOf(orgHook.id);
    expect(new Date(delivery!.next_retry_at!).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('deletes a webhook with its deliveries', async () => {
    const { owner, orgHook } = await world();
    await queueDelivery(owner, orgHook.id, 'succeeded');
    const res = await t.as(owner).delete(`/webhooks/${orgHook.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await deliveriesOf(orgHook.id)).toEqual([]);
    expectProblem(await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: false }), 404, 'NOT_FOUND');
  });

  it('lists the deliveries of the last 30 days, newest first, filtered by status', async () => {
    const { owner, orgHook } = await world();
    await queueDelivery(owner, orgHook.id, 'succeeded', 31);
    await queueDelivery(owner, orgHook.id, 'failed');
    await queueDelivery(owner, orgHook.id, 'succeeded');
    await queueDelivery(owner, orgHook.id, 'pending');
    const res = await t.as(owner).get(`/webhooks/${orgHook.id}/deliveries`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    const body = res.json();
    expect(body.map((d: { status: string }) => d.status)).toEqual(['pending', 'succeeded', 'failed']);
    expect(Object.keys(body[0]).sort()).toEqual(DELIVERY_KEYS);
    expect(body[0]).toMatchObject({ webhookId: orgHook.id, eventId: 1, eventType: 'task.created', attempts: 0, attemptLog: [], responseStatus: null });
    expect(typeof body[0].nextRetryAt).toBe('string');
    expect(body[1].nextRetryAt).toBeNull();
    const failed = await t.as(owner).get(`/webhooks/${orgHook.id}/deliveries?status=failed`);
    expect(failed.json().map((d: { status: string }) => d.status)).toEqual(['failed']);
    expectProblem(await t.as(owner).get(`/webhooks/${orgHook.id}/deliveries?status=lost`), 400, 'VALIDATION_FAILED');
  });
});

describe('webhooks: delivery log retention', () => {
  it('prunes deliveries older than the retention, keeping recent ones', async () => {
    const { owner, orgHook } = await world();
    await queueDelivery(owner, orgHook.id, 'succeeded', 40);
    await queueDelivery(owner, orgHook.id, 'failed', 2);
    expect(await runJob(t.app, WEBHOOK_PRUNE_JOB, { force: true })).toBe(true);
    expect((await deliveriesOf(orgHook.id)).map((d) => d.status)).toEqual(['failed']);
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
    const { owner, orgHook } = await world();
    expectProblem(await t.as(owner).patch(`/webhooks/${orgHook.id}`, { url: 'https://169.254.169.254/' }), 400, 'WEBHOOK_URL_FORBIDDEN');
    const [row] = await t.sql<{ url: string }>(sql`select url from webhooks where id = ${orgHook.id}`);
    expect(row!.url).toBe(URL_);
  });

  it('refuses a URL that is not absolute', async () => {
    const owner = await t.org();
    expectProblem(await t.as(owner).post('/webhooks', { url: '/relative', events: ['*'] }), 400, 'VALIDATION_FAILED');
  });
});

describe('webhooks: queueing', () => {
  it('queues matching events in the transaction of the change, by type and scope', async () => {
    const { owner, space, project, stage, orgHook, spaceHook } = await world();
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
    for (const hook of [orgHook, spaceHook, elsewhere, disabled]) expect(await deliveriesOf(hook.id)).toEqual([]);
  });

  it('queues nothing when the change rolls back after its events were recorded', async () => {
    const { owner, stage } = await world();
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
    expect(await deliveriesOf(hook.id)).toEqual([]);
    expect(await t.sql(sql`select id from tasks where organization_id = ${owner.organizationId} and name = 'Doomed'`)).toEqual([]);
  });

  it('never sends personal notification events', async () => {
    const owner = await t.org();
    const hook = (await t.as(owner).post('/webhooks', { url: URL_, events: ['*'] })).json();
    await systemWrite(t.app, owner.organizationId, async (ctx) => {
      emit(ctx, { type: 'notification.created', userId: owner.id, payload: { id: 1 } });
      emit(ctx, { type: 'organization.updated', payload: { id: owner.organizationId } });
    });
    expect((await deliveriesOf(hook.id)).map((d) => d.event_type)).toEqual(['organization.updated']);
  });
});

commonCases(t, 'POST /webhooks', {
  method: 'POST',
  foreignId: true,
  setup: async () => {
    const { owner, space, editor } = await world();
    return { url: '/webhooks', owner, body: { url: URL_, events: QUIET, spaceId: space.id }, badBody: { url: URL_, events: [] }, forbidden: editor };
  },
});
commonCases(t, 'GET /webhooks', {
  method: 'GET',
  foreignId: true,
  setup: async () => {
    const { owner, space, editor } = await world();
    return { url: `/webhooks?spaceId=${space.id}`, owner, forbidden: editor };
  },
});
commonCases(t, 'PATCH /webhooks/{webhookId}', {
  method: 'PATCH',
  setup: async () => {
    const { owner, editor, spaceHook } = await world();
    return { url: `/webhooks/${spaceHook.id}`, owner, body: { enabled: false }, badBody: { enabled: 'no' }, forbidden: editor };
  },
});
commonCases(t, 'DELETE /webhooks/{webhookId}', {
  method: 'DELETE',
  setup: async () => {
    const { owner, spaceAdmin, orgHook } = await world();
    return { url: `/webhooks/${orgHook.id}`, owner, forbidden: spaceAdmin };
  },
});
commonCases(t, 'POST /webhooks/{webhookId}/test', {
  method: 'POST',
  setup: async () => {
    const { owner, editor, spaceHook } = await world();
    return { url: `/webhooks/${spaceHook.id}/test`, owner, forbidden: editor };
  },
});
commonCases(t, 'GET /webhooks/{webhookId}/deliveries', {
  method: 'GET',
  setup: async () => {
    const { owner, editor, spaceHook } = await world();
    return { url: `/webhooks/${spaceHook.id}/deliveries`, owner, forbidden: editor };
  },
});
