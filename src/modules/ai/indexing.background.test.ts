import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { AI_TEST_CONFIG, knowledgeFactories } from './ai.fixtures.js';

// With jobs on, as in production: the request only queues, the worker runs it after commit.
const t = useTestApp({ ...AI_TEST_CONFIG, jobsEnabled: true });
const k = knowledgeFactories(t);

describe('indexing in the background', () => {
  it('indexes 500 pages with progress reaching total, announced as it goes', async () => {
    const owner = await t.org();
    const space = await k.space(owner, 'Wiki');
    const group = await k.docGroup(owner, space.id);
    // Setup shortcut: 500 pages at once (creating pages is tested in the docs module).
    await t.sql(sql`insert into pages (organization_id, space_id, documentation_group_id, name, content, "order")
      select ${owner.organizationId}, ${space.id}, ${group.id}, 'Page ' || n, '# Topic ' || n || E'\n\nParagraph about item ' || n || ' and its owner team ' || (n % 7) || '.', n
      from generate_series(1, 500) n`);
    const started = Date.now();
    const created = await t.as(owner).post('/ai/indexing-jobs', { spaceId: space.id });
    expect(created.statusCode).toBe(201);
    expect(created.json().status).toBe('queued');
    let job = created.json();
    const seen = new Set<number>();
    while (job.status === 'queued' || job.status === 'running') {
      await new Promise((r) => setTimeout(r, 50));
      job = (await t.as(owner).get(`/ai/indexing-jobs/${job.id}`)).json();
      if (job.status === 'running') seen.add(job.processed);
      expect(Date.now() - started).toBeLessThan(60_000);
    }
    expect(job).toMatchObject({ status: 'succeeded', total: 500, processed: 500, failed: 0 });
    const progress = await t.sql<{ processed: number }>(sql`select (payload->>'processed')::int as processed from events
      where organization_id = ${owner.organizationId} and type = 'ai.indexing.progress' order by id`);
    // One announcement per batch of 25, plus the queued and the started ones.
    expect(progress.map((p) => p.processed)).toEqual([0, 0, ...Array.from({ length: 20 }, (_, i) => (i + 1) * 25)]);
    expect((await t.sql<{ n: number }>(sql`select count(*)::int as n from ai_chunks where organization_id = ${owner.organizationId}`))[0]!.n).toBe(500);
    console.log(`indexed 500 pages in ${Date.now() - started} ms`);
  });
});
