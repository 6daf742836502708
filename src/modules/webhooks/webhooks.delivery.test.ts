import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { systemWrite } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { WebhookSender } from './webhooks.sender.js';

// The background sender runs (jobs on); local receivers are allowed through the allow-list, and the
// retry schedule is in milliseconds: 3 retries.
const t = useTestApp({ jobsEnabled: true, webhookAllowedHosts: ['127.0.0.1'], webhookRetrySchedule: [30, 30, 30], webhookPollMs: 20, webhookTimeoutMs: 2000 });
const f = factories(t);

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 that answers each request of a path with the next status of its script. */
const received: Received[] = [];
const scripts = new Map<string, number[]>();
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      const script = scripts.get(path) ?? [];
      res.writeHead(script.length > 1 ? script.shift()! : (script[0] ?? 200)).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let paths = 0;
/** A fresh receiver path answering with the given statuses in turn (the last one repeats). */
function receiver(...statuses: number[]): { url: string; requests: () => Received[] } {
  const path = `/hook-${++paths}`;
  scripts.set(path, statuses);
  return { url: `${base}${path}`, requests: () => received.filter((r) => r.path === path) };
}

async function until<T>(probe: () => Promise<T | undefined | null | false>, what: string, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function hookFor(events: string[], url: string, extra: Record<string, unknown> = {}) {
  const board = await f.board(1);
  const res = await t.as(board.owner).post('/webhooks', { url, events, ...extra });
  expect(res.statusCode).toBe(201);
  return { ...board, hook: res.json() as { id: number; secret: string } };
}

describe('webhook delivery', () => {
  it('retries a failing receiver with the same id and a valid signature until it succeeds', async () => {
    const rx = receiver(500, 500, 200);
    const { owner, stages, hook } = await hookFor(['task.created'], rx.url);
    const task = await f.task(owner, stages[0]!.id, { name: 'Ship it' });

    const requests = await until(async () => rx.requests().length >= 3 && rx.requests(), 'three attempts');
    const verifier = new Webhook(hook.secret);
    const [event] = await t.sql<{ id: number }>(sql`select id from events where organization_id = ${owner.organizationId} and type = 'task.created'`);
    for (const r of requests) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toBe(`evt_${owner.organizationId}_${event!.id}`);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const payload = verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; taskId: number };
      expect(payload).toMatchObject({ id: event!.id, type: 'task.created', taskId: task.id });
    }
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);

    const delivery = await until(async () => {
      const [d] = (await t.as(owner).get(`/webhooks/${hook.id}/deliveries`)).json();
      return d?.status === 'succeeded' && d;
    }, 'the delivery to succeed');
    expect(delivery).toMatchObject({ eventId: event!.id, eventType: 'task.created', attempts: 3, responseStatus: 200, error: null, nextRetryAt: null });
    expect(delivery.attemptLog.map((a: { attempt: number; responseStatus: number }) => [a.attempt, a.responseStatus])).toEqual([[1, 500], [2, 500], [3, 200]]);
    expect(delivery.attemptLog[0].error).toBe('receiver answered HTTP 500');
    expect(typeof delivery.attemptLog[2].durationMs).toBe('number');
    const [webhook] = (await t.as(owner).get('/webhooks')).json();
    expect(webhook).toMatchObject({ enabled: true, failureCount: 0 });
    expect(typeof webhook.lastDeliveryAt).toBe('string');
  });

  it('answers a test ping with its delivery, sent at once', async () => {
    const rx = receiver(202);
    const { owner, hook } = await hookFor(['label.deleted'], rx.url);
    const res = await t.as(owner).post(`/webhooks/${hook.id}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ webhookId: hook.id, eventType: 'webhook.ping', status: 'succeeded', attempts: 1, responseStatus: 202, error: null, nextRetryAt: null });
    expect(res.json().attemptLog).toHaveLength(1);
    const [request] = rx.requests();
    const ping = new Webhook(hook.secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(ping).toMatchObject({ type: 'webhook.ping', organizationId: owner.organizationId, payload: { webhookId: hook.id } });

    // A disabled webhook can still be tested: that is how one decides to enable it again.
    await t.as(owner).patch(`/webhooks/${hook.id}`, { enabled: false });
    const again = await t.as(owner).post(`/webhooks/${hook.id}/test`);
    expect(again.json()).toMatchObject({ status: 'succeeded', responseStatus: 202 });
    expect(rx.requests()).toHaveLength(2);
  });

  it('signs with the UTF-8 bytes of a secret chosen without the whsec_ prefix; a failed ping is not retried', async () => {
    const rx = receiver(500);
    const secret = 'correct horse battery staple';
    const { owner, hook } = await hookFor(['label.deleted'], rx.url, { secret });
    const res = await t.as(owner).post(`/webhooks/${hook.id}/test`);
    expect(res.json()).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 500, error: 'receiver answered HTTP 500' });
    const [request] = rx.requests();
    expect(() => new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    const [webhook] = (await t.as(owner).get('/webhooks')).json();
    expect(webhook).toMatchObject({ enabled: true, failureCount: 0 });
  });

  it('disables the webhook once a delivery has spent its retries, and announces it with webhook.disabled', async () => {
    const rx = receiver(503);
    const { owner, stages, hook } = await hookFor(['task.created'], rx.url);
    await f.task(owner, stages[0]!.id);

    const webhook = await until(async () => {
      const [w] = (await t.as(owner).get('/webhooks')).json();
      return w?.enabled === false && w;
    }, 'the webhook to be disabled');
    expect(rx.requests()).toHaveLength(4);
    expect(webhook).toMatchObject({ id: hook.id, enabled: false, failureCount: 4, creatorId: owner.id });
    expect(webhook.disabledReason).toMatch(/failed 4 times; last error: receiver answered HTTP 503/);
    const [delivery] = (await t.as(owner).get(`/webhooks/${hook.id}/deliveries?status=failed`)).json();
    expect(delivery).toMatchObject({ attempts: 4, responseStatus: 503, nextRetryAt: null });

    const events = await t.sql<{ type: string; actor_id: number | null; payload: Record<string, unknown> }>(
      sql`select type, actor_id, payload from events where organization_id = ${owner.organizationId} and type = 'webhook.disabled'`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.actor_id).toBeNull();
    expect(events[0]!.payload).toEqual(webhook);
    expect(events[0]!.payload).not.toHaveProperty('secret');
  });

  it('refuses at delivery time a URL that has become forbidden, sending nothing', async () => {
    const rx = receiver(200);
    const { owner, stages, hook } = await hookFor(['task.created'], rx.url);
    // As if the URL had been saved while it pointed elsewhere: the loopback address is not allow-listed.
    await t.sql(sql`update webhooks set url = ${rx.url.replace('127.0.0.1', 'localhost')} where id = ${hook.id}`);
    await f.task(owner, stages[0]!.id);
    const delivery = await until(async () => {
      const [d] = (await t.as(owner).get(`/webhooks/${hook.id}/deliveries`)).json();
      return d?.attempts >= 1 && d;
    }, 'an attempt');
    expect(delivery.error).toMatch(/https|this machine/);
    expect(rx.requests()).toEqual([]);
  });

  it('records a generic reason when a name resolves to an internal address at delivery time, logging the address on the server', async () => {
    const host = 'rebind-internal.example.com';
    const real = dns.lookup;
    const lookup = vi.spyOn(dns, 'lookup').mockImplementation(((name: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
      name === host ? callback(null, [{ address: '10.11.12.13', family: 4 }]) : (real as (...args: unknown[]) => void)(name, options, callback)) as never);
    const warnings: Array<Record<string, unknown>> = [];
    const child = t.app.log.child.bind(t.app.log);
    const childSpy = vi.spyOn(t.app.log, 'child').mockImplementation(((bindings: Record<string, unknown>, options?: object) => {
      const logger = child(bindings, options);
      if ('deliveryId' in bindings) vi.spyOn(logger, 'warn').mockImplementation(((details: Record<string, unknown>) => void warnings.push({ ...bindings, ...details })) as never);
      return logger;
    }) as never);
    try {
      // Saved while the name did not resolve (accepted then), it now points into the private network.
      const { owner, stages, hook } = await hookFor(['task.created'], `https://${host}/in`);
      await f.task(owner, stages[0]!.id);
      const webhook = await until(async () => {
        const [w] = (await t.as(owner).get('/webhooks')).json();
        return w?.enabled === false && w;
      }, 'the webhook to be disabled');
      const generic = `${host} resolves to an address webhooks may not target (loopback, private, link-local or reserved)`;
      const [delivery] = (await t.as(owner).get(`/webhooks/${hook.id}/deliveries`)).json();
      expect(delivery).toMatchObject({ status: 'failed', attempts: 4, responseStatus: null, error: generic });
      expect(delivery.attemptLog.map((a: { error: string }) => a.error)).toEqual([generic, generic, generic, generic]);
      expect(webhook.disabledReason).toContain(generic);
      expect(JSON.stringify([delivery, webhook])).not.toContain('10.11.12.13');
      // The operator still learns where it pointed, with the delivery it concerns, and never the secret.
      expect(warnings).toHaveLength(4);
      expect(warnings[0]).toEqual({ webhookId: hook.id, deliveryId: delivery.id, host, address: '10.11.12.13', reason: 'private' });
      expect(JSON.stringify(warnings)).not.toContain(hook.secret);
    } finally {
      lookup.mockRestore();
      childSpy.mockRestore();
    }
  });

  it('sends each delivery once although several senders (instances) drain the queue at the same time', async () => {
    const rx = receiver(200);
    const { owner, hook } = await hookFor(['organization.updated'], rx.url);
    const others = [new WebhookSender(t.app), new WebhookSender(t.app)];
    await systemWrite(t.app, owner.organizationId, async (ctx) => {
      for (let i = 0; i < 15; i++) emit(ctx, { type: 'organization.updated', payload: { id: owner.organizationId, i } });
    });
    await Promise.all(others.map((s) => s.drain()));
    await until(async () => {
      const rows = await t.sql<{ n: number }>(sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${hook.id} and status = 'succeeded'`);
      return rows[0]!.n === 15;
    }, 'every delivery to succeed');
    const ids = rx.requests().map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(15);
    expect(new Set(ids).size).toBe(15);
    await Promise.all(others.map((s) => s.stop()));
  });

  it.runIf(Boolean(process.env.DATABASE_URL))('records an attempt by locking the webhook before its delivery (two failing deliveries cannot deadlock)', async () => {
    const rx = receiver(200);
    const { owner, hook } = await hookFor(['organization.updated'], rx.url);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from webhooks where id = $1 for no key update', [hook.id]);
      await systemWrite(t.app, owner.organizationId, async (ctx) => emit(ctx, { type: 'organization.updated', payload: { id: owner.organizationId } }));
      await until(async () => rx.requests().length === 1, 'the delivery to be sent');
      // The sender now waits for the webhook's row, holding nothing of the delivery yet.
      await until(async () => {
        const { rows } = await other.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%webhooks%'`,
        );
        return rows[0]!.n === 1;
      }, 'the sender to wait for the webhook');
      const free = await other.query(`select id from webhook_deliveries where webhook_id = $1 and status = 'pending' for update nowait`, [hook.id]);
      expect(free.rowCount).toBe(1);
      await other.query('commit');
      await until(async () => {
        const rows = await t.sql<{ status: string }>(sql`select status from webhook_deliveries where webhook_id = ${hook.id}`);
        return rows[0]?.status === 'succeeded';
      }, 'the delivery to be recorded');
    } finally {
      await other.end();
    }
  });
});
