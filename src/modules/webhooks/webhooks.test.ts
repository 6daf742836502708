import { afterEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { runJob } from '../../platform/jobs.js';
import { WEBHOOK_PRUNE_JOB } from './webhooks.jobs.js';
import { deliveriesOf, QUIET, queueDelivery, URL_, world } from './webhooks.fixtures.js';

// No background sender here (jobs off): deliveries stay as queued, so refused requests can be
// proven to change nothing. Sending is tested in webhooks.delivery.test.ts.
const t = useTestApp();
const f = factories(t);
const WEBHOOK_KEYS = ['createdAt', 'creatorId', 'disabledReason', 'enabled', 'events', 'failureCount', 'id', 'lastDeliveryAt', 'projectId', 'secretSet', 'spaceId', 'updatedAt', 'url'];
const DELIVERY_KEYS = ['attemptLog', 'attempts', 'createdAt', 'durationMs', 'error', 'eventId', 'eventType', 'id', 'nextRetryAt', 'responseStatus', 'status', 'updatedAt', 'webhookId'];

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
    const { owner, space, project, spaceAdmin, editor, orgHook, spaceHook } = await world(t);
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
    const { spaceAdmin, spaceHook } = await world(t);
    const res = await t.as(spaceAdmin).patch(`/webhooks/${spaceHook.id}`, { url: 'https://other.example.com/x', events: ['task.*'], secret: 'another long passphrase' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.json()).toMatchObject({ url: 'https://other.example.com/x', events: ['task.*'], secretSet: true });
    const [row] = await t.sql<{ secret: string }>(sql`select secret from webhooks where id = ${spaceHook.id}`);
    expect(row!.secret).toBe('another long passphrase');
  });

  it('parks pending deliveries while disabled and resumes them, failure count cleared, when enabled again', async () => {
    const { owner, orgHook } = await world(t);
    await queueDelivery(t, owner, orgHook.id, 'pending');
    await t.sql(sql`update webhooks set failure_count = 3 where id = ${orgHook.id}`);

    const off = await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, failureCount: 3 });
    expect((await deliveriesOf(t, orgHook.id))[0]!.next_retry_at).toBeNull();

    const on = await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: true });
    expect(on.json()).toMatchObject({ enabled: true, failureCount: 0, disabledReason: null });
    const [delivery] = await deliveriesOf(t, orgHook.id);
    expect(new Date(delivery!.next_retry_at!).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('deletes a webhook with its deliveries', async () => {
    const { owner, orgHook } = await world(t);
    await queueDelivery(t, owner, orgHook.id, 'succeeded');
    const res = await t.as(owner).delete(`/webhooks/${orgHook.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await deliveriesOf(t, orgHook.id)).toEqual([]);
    expectProblem(await t.as(owner).patch(`/webhooks/${orgHook.id}`, { enabled: false }), 404, 'NOT_FOUND');
  });

  it('lists the deliveries of the last 30 days, newest first, filtered by status', async () => {
    const { owner, orgHook } = await world(t);
    await queueDelivery(t, owner, orgHook.id, 'succeeded', 31);
    await queueDelivery(t, owner, orgHook.id, 'failed');
    await queueDelivery(t, owner, orgHook.id, 'succeeded');
    await queueDelivery(t, owner, orgHook.id, 'pending');
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

describe('webhooks: URLs refused by the SSRF guard', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers 400 without the address an internal name resolves to, on create and on update', async () => {
    const { owner, spaceAdmin, spaceHook } = await world(t);
    const real = dns.promises.lookup.bind(dns.promises);
    vi.spyOn(dns.promises, 'lookup').mockImplementation(((host: string, options: dns.LookupAllOptions) =>
      host === 'billing.corp.example.com' ? Promise.resolve([{ address: '10.20.30.40', family: 4 }]) : real(host, options)) as never);
    const generic = 'url host billing.corp.example.com resolves to an address webhooks may not target (loopback, private, link-local or reserved)';

    const created = await t.as(owner).post('/webhooks', { url: 'https://billing.corp.example.com/hook', events: QUIET });
    expect(expectProblem(created, 400, 'WEBHOOK_URL_FORBIDDEN').detail).toBe(generic);
    expect(created.body).not.toContain('10.20.30.40');
    expect(created.body).not.toMatch(/\bprivate address\b/);

    const updated = await t.as(spaceAdmin).patch(`/webhooks/${spaceHook.id}`, { url: 'https://billing.corp.example.com/hook' });
    expectProblem(updated, 400, 'WEBHOOK_URL_FORBIDDEN');
    expect(updated.body).toContain(generic);
    expect(updated.body).not.toContain('10.20.30.40');
    expect((await t.as(owner).get('/webhooks')).json().map((w: { url: string }) => w.url)).not.toContain('https://billing.corp.example.com/hook');
  });

  it('names the class of an IP literal the caller wrote, newly blocked ranges included', async () => {
    const owner = await t.org();
    for (const [url, reason] of [
      ['https://198.18.0.1/', 'benchmarking'],
      ['https://[2002:a00:1::1]/', 'private'],
      ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo'],
      ['https://[64:ff9b:1::1]/', 'NAT64 local-use'],
      ['https://[100::1]/', 'discard-only'],
    ]) {
      const res = await t.as(owner).post('/webhooks', { url, events: QUIET });
      expectProblem(res, 400, 'WEBHOOK_URL_FORBIDDEN');
      expect(res.body).toContain(`${reason} address`);
    }
  });
});

describe('webhooks: delivery log retention', () => {
  it('prunes deliveries older than the retention, keeping recent ones', async () => {
    const { owner, orgHook } = await world(t);
    await queueDelivery(t, owner, orgHook.id, 'succeeded', 40);
    await queueDelivery(t, owner, orgHook.id, 'failed', 2);
    expect(await runJob(t.app, WEBHOOK_PRUNE_JOB, { force: true })).toBe(true);
    expect((await deliveriesOf(t, orgHook.id)).map((d) => d.status)).toEqual(['failed']);
  });
});

commonCases(t, 'POST /webhooks', {
  method: 'POST',
  foreignId: true,
  setup: async () => {
    const { owner, space, editor } = await world(t);
    return { url: '/webhooks', owner, body: { url: URL_, events: QUIET, spaceId: space.id }, badBody: { url: URL_, events: [] }, forbidden: editor };
  },
});
commonCases(t, 'GET /webhooks', {
  method: 'GET',
  foreignId: true,
  setup: async () => {
    const { owner, space, editor } = await world(t);
    return { url: `/webhooks?spaceId=${space.id}`, owner, forbidden: editor };
  },
});
commonCases(t, 'PATCH /webhooks/{webhookId}', {
  method: 'PATCH',
  setup: async () => {
    const { owner, editor, spaceHook } = await world(t);
    return { url: `/webhooks/${spaceHook.id}`, owner, body: { enabled: false }, badBody: { enabled: 'no' }, forbidden: editor };
  },
});
commonCases(t, 'DELETE /webhooks/{webhookId}', {
  method: 'DELETE',
  setup: async () => {
    const { owner, spaceAdmin, orgHook } = await world(t);
    return { url: `/webhooks/${orgHook.id}`, owner, forbidden: spaceAdmin };
  },
});
commonCases(t, 'POST /webhooks/{webhookId}/test', {
  method: 'POST',
  setup: async () => {
    const { owner, editor, spaceHook } = await world(t);
    return { url: `/webhooks/${spaceHook.id}/test`, owner, forbidden: editor };
  },
});
commonCases(t, 'GET /webhooks/{webhookId}/deliveries', {
  method: 'GET',
  setup: async () => {
    const { owner, editor, spaceHook } = await world(t);
    return { url: `/webhooks/${spaceHook.id}/deliveries`, owner, forbidden: editor };
  },
});
