import { afterAll, describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../test/app.js';
import { eventually, listen, SseClient } from '../modules/events/realtime.fixtures.js';
import { registerJob, runJob } from './jobs.js';

const t = useTestApp();

/** Scrapes /metrics and answers the value of one sample (exact name and labels), or undefined. */
async function scrape(headers: Record<string, string> = {}) {
  const res = await t.as(null).get('/metrics', headers);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = res.body;
  const value = (sample: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
    return line === undefined ? undefined : Number(line.slice(sample.length + 1));
  };
  return { text, value };
}

let sse: SseClient | null = null;
afterAll(() => sse?.close());

describe('GET /metrics', () => {
  it('counts requests by route pattern and status, never by raw URL', async () => {
    const owner = await t.org();
    const before = await scrape();
    const count = (route: string, status: number) =>
      `workboard_http_request_duration_seconds_count{method="GET",route="${route}",status="${status}"}`;
    const health0 = before.value(count('/health', 200)) ?? 0;

    expect((await t.as(null).get('/health')).statusCode).toBe(200);
    expect((await t.as(owner).get('/spaces/987654321')).statusCode).toBe(404);
    expect((await t.as(null).get('/no/such/route/4242')).statusCode).toBe(404);

    const after = await scrape();
    expect(after.value(count('/health', 200))).toBe(health0 + 1);
    expect(after.value(count('/spaces/:spaceId', 404))).toBeGreaterThanOrEqual(1);
    expect(after.value(count('unmatched', 404))).toBeGreaterThanOrEqual(1);
    // In a label, that is: the digits alone may well occur in a duration's sum.
    expect(after.text).not.toContain('/spaces/987654321');
    expect(after.text).not.toContain('/no/such/route');
  });

  it('reports database timings, the read cache, jobs, and Node process figures', async () => {
    const owner = await t.org();
    // The same credential twice: the second is resolved from memory.
    await t.as(owner).get('/user/organization');
    await t.as(owner).get('/user/organization');
    registerJob(t.app, { name: 'metrics.test.ok', intervalMs: 60_000, exclusive: false, run: async () => {} });
    registerJob(t.app, { name: 'metrics.test.fails', intervalMs: 60_000, exclusive: false, run: async () => Promise.reject(new Error('expected')) });
    await runJob(t.app, 'metrics.test.ok');
    await expect(runJob(t.app, 'metrics.test.fails')).rejects.toThrow('expected');

    const { text, value } = await scrape();
    expect(value('workboard_db_query_duration_seconds_count')).toBeGreaterThan(0);
    expect(value('workboard_db_queries_in_flight')).toBeGreaterThanOrEqual(0);
    if (t.database.kind === 'postgres') expect(value('workboard_db_pool_connections')).toBeGreaterThan(0);
    expect(value('workboard_read_cache_credential_lookups_total{result="hit"}')).toBeGreaterThan(0);
    expect(text).toMatch(/^workboard_read_cache_answer_hit_ratio \d/m);
    expect(value('workboard_job_runs_total{job="metrics.test.ok",outcome="ok"}')).toBe(1);
    expect(value('workboard_job_runs_total{job="metrics.test.fails",outcome="failed"}')).toBe(1);
    expect(value('workboard_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reports real-time connections and how long events took to reach them', async () => {
    const owner = await t.org();
    const host = await listen(t.app);
    sse = await SseClient.open(host, '/events', owner.headers);
    expect(sse.status).toBe(200);
    expect((await scrape()).value('workboard_realtime_connections')).toBe(1);
    const lag0 = (await scrape()).value('workboard_event_dispatch_lag_seconds_count') ?? 0;

    expect((await t.as(owner).post('/spaces', { name: 'Watched' })).statusCode).toBe(201);
    await eventually(() => expect(sse!.events.map((e) => e.type)).toContain('space.created'));
    const { value } = await scrape();
    expect(value('workboard_event_dispatch_lag_seconds_count')).toBeGreaterThan(lag0);
    expect(value('workboard_event_dispatch_lag_seconds_bucket{le="+Inf"}')).toBe(value('workboard_event_dispatch_lag_seconds_count'));
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const locked = useTestApp({ metricsToken: 'scrape-secret' });

  it('answers 401 without the token, or with a wrong one, and 200 with it', async () => {
    const none = await locked.as(null).get('/metrics');
    expectProblem(none, 401, 'UNAUTHENTICATED');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expectProblem(await locked.as(null).get('/metrics', { authorization: 'Bearer wrong' }), 401, 'UNAUTHENTICATED');
    const ok = await locked.as(null).get('/metrics', { authorization: 'Bearer scrape-secret' });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('workboard_http_request_duration_seconds');
  });
});
