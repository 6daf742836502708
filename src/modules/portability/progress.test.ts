import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { runJob } from '../../platform/jobs.js';
import { exportOrganization, richOrganization, uploadArchive } from './portability.fixtures.js';
import { PORTABILITY_JOB } from './portability.worker.js';

const t = useTestApp();

interface Seen {
  status: string;
  processed: number;
  total: number;
}

/**
 * Issue #44: on PostgreSQL an import's progress read "0 / 151" queued, "3 / 0" running and "0 / 0"
 * once succeeded. A client follows the status route (and the progress events) while the job runs.
 */
describe('organization import progress', () => {
  it('rises from 0 to the total and ends at total / total, as the status route and the events tell it', async () => {
    const { owner } = await richOrganization(t);
    const { archive } = await exportOrganization(t, owner);
    const importer = await t.org();
    const started = await uploadArchive(t, importer, archive);
    expect(started.statusCode).toBe(202);
    const path = `/organization/imports/${started.json().id}`;
    const total = started.json().total as number;
    expect(total).toBeGreaterThan(50);
    expect(started.json()).toMatchObject({ status: 'queued', processed: 0, total });

    const seen: Seen[] = [];
    const read = async () => {
      const res = await t.as(importer).get(path);
      expect(res.statusCode).toBe(200);
      const { status, processed, total: ofJob } = res.json() as Seen;
      seen.push({ status, processed, total: ofJob });
      return status;
    };
    // The status route is read while the job runs (on PostgreSQL it answers beside the import's
    // transaction; the embedded engine's one connection answers once the import is done).
    const running = runJob(t.app, PORTABILITY_JOB);
    let done = false;
    void running.finally(() => (done = true));
    while (!done) {
      await read();
      await new Promise((r) => setTimeout(r, 5));
    }
    await running;
    expect(await read()).toBe('succeeded');

    for (const s of seen) {
      expect(s.total).toBe(total);
      expect(s.processed).toBeLessThanOrEqual(total);
    }
    const processed = seen.map((s) => s.processed);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    expect(seen.at(-1)).toEqual({ status: 'succeeded', processed: total, total });

    const events = await t.sql<{ type: string; payload: unknown }>(
      sql`select type, payload from events where organization_id = ${importer.organizationId} and type like 'organization.import.%' order by id`,
    );
    const payloads = events.map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload) as Seen);
    for (const p of payloads) expect(p.total).toBe(total);
    expect(payloads.map((p) => p.processed)).toEqual(payloads.map((p) => p.processed).sort((a, b) => a - b));
    expect(events.at(-1)!.type).toBe('organization.import.finished');
    expect(payloads.at(-1)).toMatchObject({ status: 'succeeded', processed: total, total });
    // The finished job reports what it wrote.
    const job = (await t.as(importer).get(path)).json();
    expect(job.report.counts.tasks).toBeGreaterThan(0);
    if (t.app.database.kind === 'postgres') {
      // Written beside the import's transaction: at least one report while it ran, before the end.
      expect(payloads.some((p) => p.status === 'running' && p.processed > 0 && p.processed < total)).toBe(true);
    }
  });
});
