import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { runJob } from '../../platform/jobs.js';
import { AI_TEST_CONFIG, knowledgeFactories, useFakeProviders } from './ai.fixtures.js';
import { INDEXING_JOB } from './index/indexing.worker.js';

const t = useTestApp(AI_TEST_CONFIG);
const fakes = useFakeProviders();
const k = knowledgeFactories(t);

const HANDBOOK = `# Deploys

We deploy on Fridays after the review.

## Rollback

A failed deploy is rolled back with the release script.`;

async function world() {
  const owner = await t.org();
  const space = await k.space(owner, 'Engineering');
  const group = await k.docGroup(owner, space.id);
  const parent = await k.page(owner, space.id, group.id, 'Handbook', '<p>Our handbook.</p>');
  const page = await k.page(owner, space.id, group.id, 'Deploys', HANDBOOK, parent.id);
  const reglament = await k.reglament(owner, space.id, 'Security rules', '<h2>Laptops</h2><p>Encrypt every laptop disk.</p>');
  const project = await k.projectDoc(owner, space.id, 'Billing', 'Invoices are sent on the first day of the month.');
  return { owner, space, group, parent, page, reglament, project };
}

const jobOf = async (owner: Parameters<typeof t.as>[0], id: number) => (await t.as(owner).get(`/ai/indexing-jobs/${id}`)).json();
/**
 * Runs the queue here until the job is done. (On a shared PostgreSQL another test file's app with
 * jobs on may have claimed it: then this waits for that worker.)
 */
async function finish(owner: Parameters<typeof t.as>[0], jobId: number) {
  for (let i = 0; i < 400; i++) {
    await runJob(t.app, INDEXING_JOB);
    const job = await jobOf(owner, jobId);
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe('indexing a space', () => {
  it('queues a job, runs it in the background, and indexes every source with chunks and title paths', async () => {
    const w = await world();
    const before = (await t.as(w.owner).get(`/ai/documents/unindexed?spaceId=${w.space.id}`)).json();
    expect(before.count).toBe(4);
    expect(before.documents.map((d: any) => d.sourceType).sort()).toEqual(['page', 'page', 'project-documentation', 'reglament']);

    const created = await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id });
    expect(created.statusCode).toBe(201);
    const createdJob = created.json();
    expect(created.json()).toEqual({
      id: expect.any(Number), spaceId: w.space.id, status: 'queued', full: false, total: 0, processed: 0, failed: 0,
      finishedAt: null, error: null, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    await finish(w.owner, createdJob.id);
    expect(await jobOf(w.owner, created.json().id)).toMatchObject({ status: 'succeeded', total: 4, processed: 4, failed: 0, finishedAt: expect.any(String) });

    const docs = await t.as(w.owner).get(`/ai/documents?spaceId=${w.space.id}`);
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['x-total-count']).toBe('4');
    const page = docs.json().find((d: any) => d.sourceType === 'page' && d.sourceId === w.page.id);
    expect(page).toMatchObject({ spaceId: w.space.id, title: 'Deploys', status: 'indexed', chunks: 2, contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const chunks = await t.sql<{ heading: string; content: string }>(sql`select heading, content from ai_chunks c join ai_documents d on d.id = c.document_id
      where d.source_type = 'page' and d.source_id = ${w.page.id} order by position`);
    expect(chunks).toEqual([
      { heading: 'Handbook › Deploys › Deploys', content: 'We deploy on Fridays after the review.' },
      { heading: 'Handbook › Deploys › Deploys › Rollback', content: 'A failed deploy is rolled back with the release script.' },
    ]);
    const reglament = await t.sql<{ heading: string; content: string }>(sql`select heading, content from ai_chunks c join ai_documents d on d.id = c.document_id
      where d.source_type = 'reglament' and d.source_id = ${w.reglament.id}`);
    expect(reglament).toEqual([{ heading: 'Security rules › Laptops', content: 'Encrypt every laptop disk.' }]);
    expect((await t.as(w.owner).get(`/ai/documents/unindexed?spaceId=${w.space.id}`)).json()).toEqual({ count: 0, documents: [] });

    const events = await t.sql<{ type: string; payload: any; space_id: number; editors_only: boolean }>(
      sql`select type, payload, space_id::int, editors_only from events where organization_id = ${w.owner.organizationId} and type like 'ai.%' order by id`,
    );
    // For the space's editors and admins only (organization admins included), like a draft's changes.
    expect(events.every((e) => e.editors_only && e.space_id === w.space.id)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'ai.indexing.finished', payload: { id: created.json().id, status: 'succeeded', total: 4, processed: 4 } });
    expect(events.filter((e) => e.type === 'ai.indexing.progress').length).toBeGreaterThanOrEqual(2);
  });

  it('answers 409 INDEXING_RUNNING while a job of the space is queued, creating nothing', async () => {
    const w = await world();
    // A job a worker is on (fresh heartbeat): no worker can take it from under this test.
    const [active] = await t.sql<{ id: number }>(sql`insert into ai_indexing_jobs (organization_id, space_id, status, heartbeat_at)
      values (${w.owner.organizationId}, ${w.space.id}, 'running', now()) returning id::int`);
    expectProblem(await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id, full: true }), 409, 'INDEXING_RUNNING');
    expect(await t.sql(sql`select id from ai_indexing_jobs where space_id = ${w.space.id}`)).toHaveLength(1);
    await t.sql(sql`update ai_indexing_jobs set status = 'succeeded' where id = ${active!.id}`);
    const next = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    expect(next.status).toBe('queued');
    await finish(w.owner, next.id);
  });

  it('an edited page turns stale, a changed-only job re-indexes that page alone, and a deleted one leaves the index', async () => {
    const w = await world();
    await finish(w.owner, (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json().id);
    const indexedAt = async () =>
      Object.fromEntries((await t.as(w.owner).get(`/ai/documents?spaceId=${w.space.id}`)).json().map((d: any) => [`${d.sourceType}:${d.sourceId}`, d.indexedAt]));
    const first = await indexedAt();

    await t.as(w.owner).patch(`/pages/${w.page.id}/content`, { content: 'We deploy on Tuesdays now.' });
    const stale = await t.as(w.owner).get(`/ai/documents?status=stale`);
    expect(stale.json().map((d: any) => d.sourceId)).toEqual([w.page.id]);

    const job = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    await finish(w.owner, job.id);
    expect(await jobOf(w.owner, job.id)).toMatchObject({ status: 'succeeded', total: 1, processed: 1 });
    const second = await indexedAt();
    expect(second[`page:${w.page.id}`]).not.toBe(first[`page:${w.page.id}`]);
    for (const key of Object.keys(first).filter((key) => key !== `page:${w.page.id}`)) expect(second[key]).toBe(first[key]);
    expect((await t.as(w.owner).get(`/ai/documents?status=stale`)).json()).toEqual([]);

    // full: every source again.
    const full = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id, full: true })).json();
    await finish(w.owner, full.id);
    expect(await jobOf(w.owner, full.id)).toMatchObject({ full: true, total: 4, processed: 4 });

    expect((await t.as(w.owner).delete(`/pages/${w.page.id}`)).statusCode).toBe(204);
    expect((await t.as(w.owner).get(`/ai/documents?status=stale`)).json().map((d: any) => d.sourceId)).toEqual([w.page.id]);
    const removal = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    await finish(w.owner, removal.id);
    expect(await jobOf(w.owner, removal.id)).toMatchObject({ total: 1, processed: 1 });
    expect(await t.sql(sql`select 1 from ai_documents where source_type = 'page' and source_id = ${w.page.id}`)).toEqual([]);
    expect(await t.sql(sql`select 1 from ai_chunks c where not exists (select 1 from ai_documents d where d.id = c.document_id)`)).toEqual([]);
  });

  it('stores unit embeddings when an embedding model is set, and records the tokens', async () => {
    const w = await world();
    await t.as(w.owner).put('/ai/llm-settings', { provider: 'openai-compatible', baseUrl: `${fakes.openai.url}/v1`, apiKey: 'sk-test-abcdefgh', model: 'gpt-test', embeddingModel: 'embed-test' });
    await finish(w.owner, (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json().id);
    const vectors = await t.sql<{ embedding: number[] }>(sql`select embedding from ai_chunks where organization_id = ${w.owner.organizationId}`);
    expect(vectors.length).toBe(5);
    for (const { embedding } of vectors) {
      expect(embedding).toHaveLength(16);
      expect(Math.hypot(...embedding)).toBeCloseTo(1, 4);
    }
    expect(fakes.openai.requests.at(-1)).toMatchObject({ path: '/v1/embeddings', body: { model: 'embed-test' } });
    const [usage] = await t.sql<{ model: string; requests: number; prompt_tokens: number }>(sql`select model, requests, prompt_tokens::int from ai_usage where organization_id = ${w.owner.organizationId}`);
    expect(usage).toEqual({ model: 'embed-test', requests: 1, prompt_tokens: 25 });
  });

  it('marks sources failed when the embedding provider fails, keeps them searchable, and retries them next time', async () => {
    const w = await world();
    await t.as(w.owner).put('/ai/llm-settings', { provider: 'ollama', baseUrl: fakes.ollama.url, model: 'llama3', embeddingModel: 'nomic' });
    fakes.ollama.failures.push({ status: 500 }, { status: 500 });
    const job = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    await finish(w.owner, job.id);
    expect(await jobOf(w.owner, job.id)).toMatchObject({ status: 'succeeded', total: 4, processed: 4, failed: 4 });
    expect((await t.as(w.owner).get('/ai/documents?status=failed')).json()).toHaveLength(4);
    const retry = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    await finish(w.owner, retry.id);
    expect(await jobOf(w.owner, retry.id)).toMatchObject({ total: 4, failed: 0 });
    expect((await t.as(w.owner).get('/ai/documents?status=indexed')).json()).toHaveLength(4);
  });

  it('answers 404 for a space or job of another organization, and pages the documents list', async () => {
    const w = await world();
    const stranger = await t.org();
    expectProblem(await t.as(stranger).get(`/ai/documents?spaceId=${w.space.id}`), 404, 'NOT_FOUND');
    await finish(w.owner, (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json().id);
    const page = await t.as(w.owner).get('/ai/documents?limit=3');
    expect(page.json()).toHaveLength(3);
    expect(page.headers['x-total-count']).toBe('4');
    expect(page.headers.link).toContain('offset=3');
    expect((await t.as(w.owner).get('/ai/documents?offset=10')).headers['x-total-count']).toBe('4');
  });
});

const adminRoute = (method: 'GET' | 'POST', path: (w: Awaited<ReturnType<typeof world>>, jobId: number) => string, body?: (w: Awaited<ReturnType<typeof world>>) => unknown, badBody?: unknown) =>
  commonCases(t, `${method} ${path({ space: { id: 0 } } as never, 0).replace(/\d+/g, '{id}')}`, {
    method,
    foreignId: true,
    setup: async (kit) => {
      const w = await world();
      const job = (await kit.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
      await finish(w.owner, job.id);
      return { url: path(w, job.id), owner: w.owner, body: body?.(w), badBody, forbidden: await k.member(w.owner, w.space.id, 'admin') };
    },
  });

adminRoute('GET', (w) => `/ai/documents?spaceId=${w.space.id}`);
adminRoute('GET', (w) => `/ai/documents/unindexed?spaceId=${w.space.id}`);
adminRoute('GET', (_w, jobId) => `/ai/indexing-jobs/${jobId}`);
adminRoute('POST', () => '/ai/indexing-jobs', (w) => ({ spaceId: w.space.id, full: true }), { spaceId: 'one' });

describe('a space deleted while its job waits', () => {
  it('takes the job with it; the worker finds nothing to do and logs no error', async () => {
    const w = await world();
    const job = (await t.as(w.owner).post('/ai/indexing-jobs', { spaceId: w.space.id })).json();
    expect((await t.as(w.owner).delete(`/spaces/${w.space.id}`)).statusCode).toBe(204);
    const errorsBefore = t.logs.filter((l) => l.includes('indexing job failed')).length;
    await runJob(t.app, INDEXING_JOB);
    expectProblem(await t.as(w.owner).get(`/ai/indexing-jobs/${job.id}`), 404, 'NOT_FOUND');
    expect(t.logs.filter((l) => l.includes('indexing job failed')).length).toBe(errorsBefore);
  });
});

describe('a job lost with its process', () => {
  it('is taken again by a worker once its heartbeat is old, and finishes', async () => {
    const w = await world();
    // As a process that died mid-job leaves it: running, silent for ten minutes.
    const [lost] = await t.sql<{ id: number }>(sql`insert into ai_indexing_jobs (organization_id, space_id, status, heartbeat_at, total, processed)
      values (${w.owner.organizationId}, ${w.space.id}, 'running', now() - interval '10 minutes', 4, 1) returning id::int`);
    expect(await finish(w.owner, lost!.id)).toMatchObject({ status: 'succeeded', total: 4, processed: 4 });
  });
});
