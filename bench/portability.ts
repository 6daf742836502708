/**
 * `npm run bench:portability [-- --db pglite|postgres] [--tasks 100000]`
 *
 * Organization export and import of a large organization, with the server's RSS sampled every 20 ms
 * against its idle RSS: both stream (rows in batches, the archive to and from storage), so the peak
 * must not grow with the organization. The organization is made as for WA (bench/analytics.ts:
 * through the API, then --tasks tasks bulk-inserted in SQL with their column, assignee, column
 * stays, status changes and time records). Then: POST /organization/exports, polled until done
 * (every progress value seen is counted), the archive downloaded to disk, uploaded by another user
 * as POST /organization/imports and polled until that import is done.
 */
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { largeOrganization } from './analytics.js';
import type { RunningServer } from './server.js';
import { call } from './seed.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    tasks: { type: 'string', default: '100000' },
  },
});
const mode = values.db!;
const count = Number(values.tasks);
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/workboard_bench';

/** Peak RSS while `work` runs. */
async function peakDuring<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; peak: number; seconds: number }> {
  let peak = server.rssMiB();
  const timer = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 20);
  const started = performance.now();
  try {
    const result = await work();
    return { result, peak, seconds: (performance.now() - started) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

/** Polls a job until it ends; answers it and the distinct progress values seen. */
async function follow(server: RunningServer, session: string, url: string): Promise<{ job: Record<string, unknown>; steps: number }> {
  const seen = new Set<number>();
  let last = { processed: 0, total: null as unknown };
  for (;;) {
    const job = (await call(server.url, session, 'GET', url)) as Record<string, unknown>;
    seen.add(job.processed as number);
    // An import's progress only rises, against one total (issue 44: it read 3 / 0, then 0 / 0, on PostgreSQL).
    const strict = url.includes('/imports/');
    if (strict && ((job.processed as number) < last.processed || (last.total !== null && job.total !== last.total))) {
      throw new Error(`${url}: progress went from ${last.processed} / ${last.total} to ${job.processed} / ${job.total}`);
    }
    last = { processed: job.processed as number, total: job.total };
    if (job.status !== 'queued' && job.status !== 'running') return { job, steps: seen.size };
    await new Promise((r) => setTimeout(r, 200));
  }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-portability-'));
try {
  const { server, org } = await largeOrganization(mode, pgUrl, dataDir, count);
  const session = org.session;
  await new Promise((r) => setTimeout(r, 2000));
  const idle = server.rssMiB();

  const exported = await peakDuring(server, async () => {
    const job = await call(server.url, session, 'POST', '/organization/exports');
    return follow(server, session, `/organization/exports/${job.id}`);
  });
  if (exported.result.job.status !== 'succeeded') throw new Error(`export failed: ${JSON.stringify(exported.result.job)}`);
  const file = path.join(dataDir, 'export.tar.gz');
  const download = await peakDuring(server, async () => {
    const res = await fetch(`${server.url}/organization/exports/${exported.result.job.id}/download`, { headers: { 'service-session': session } });
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
  });
  const rows = Object.values((exported.result.job.report as { counts: Record<string, number> }).counts).reduce((a, b) => a + b, 0);

  const importer = await call(server.url, null, 'POST', '/auth/register', { email: `import-${Date.now()}@example.test`, password: 'benchmark password', name: 'Importer' });
  const imported = await peakDuring(server, async () => {
    const form = new FormData();
    form.append('file', await openAsBlob(file), 'export.tar.gz');
    const res = await fetch(`${server.url}/organization/imports`, { method: 'POST', headers: { 'service-session': importer.session }, body: form });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const job = (await res.json()) as { id: number };
    return follow(server, importer.session, `/organization/imports/${job.id}`);
  });
  if (imported.result.job.status !== 'succeeded') throw new Error(`import failed: ${JSON.stringify(imported.result.job)}`);
  await server.stop();

  const mib = (n: number) => n.toFixed(0);
  console.log(`\n${mode}: ${count} tasks, ${rows} rows exported, archive ${(statSync(file).size / 1048576).toFixed(1)} MiB; idle RSS ${mib(idle)} MiB`);
    // Issue 44: a client following a job must see it end at total / total.
  const end = (job: Record<string, unknown>) => `${job.processed} / ${job.total}`;
  console.log('| step | seconds | peak RSS MiB | over idle MiB | progress values seen | progress at the end |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| export (POST → succeeded) | ${exported.seconds.toFixed(1)} | ${mib(exported.peak)} | ${mib(exported.peak - idle)} | ${exported.result.steps} | ${end(exported.result.job)} |`);
  console.log(`| download (streamed to disk) | ${download.seconds.toFixed(1)} | ${mib(download.peak)} | ${mib(download.peak - idle)} | – | – |`);
  console.log(`| import (upload, check, load → succeeded) | ${imported.seconds.toFixed(1)} | ${mib(imported.peak)} | ${mib(imported.peak - idle)} | ${imported.result.steps} | ${end(imported.result.job)} |`);
  const job = imported.result.job;
  if (job.processed !== job.total || !(Number(job.total) > 0)) throw new Error(`the import ended at ${end(job)}, not at total / total`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
