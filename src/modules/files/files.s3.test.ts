import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { runJob } from '../../platform/jobs.js';
import { sweepOrphans } from '../../platform/storage/deletions.js';
import { expectProblem } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { useStorageTestApp } from '../../test/storage.js';
import { PNG, keyOf, multipart, sendFile } from './files.fixtures.js';

// Several instances on one database and one bucket, and a bucket that stops answering.
const t = useStorageTestApp('s3');
const f = factories(t);

async function world() {
  const owner = await t.org();
  const space = await f.space(owner);
  const project = await f.project(owner, space.id);
  return { owner, url: `/projects/${project.id}/documentation` };
}

/** A second instance of the service: its own app, the same database and the same bucket and prefix. */
async function secondInstance(): Promise<FastifyInstance> {
  return buildApp({ ...t.config, logLevel: 'silent' }, { database: t.database });
}

const inject = (app: FastifyInstance, headers: Record<string, string>, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Buffer, extra: Record<string, string> = {}) =>
  app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload ? { payload } : {}) });

describe('two instances on one database and one bucket', () => {
  it('a file uploaded through one downloads byte-identical through the other; one deleted through the other is gone after the job', async () => {
    const other = await secondInstance();
    try {
      const w = await world();
      const data = randomBytes(6 * 1024 * 1024 + 123); // over one multipart part
      const body = multipart([{ name: 'files[]', data, filename: 'big.bin' }]);
      const up = await inject(t.app, w.owner.headers, 'POST', `${w.url}/files`, body.payload, body.headers);
      expect(up.statusCode).toBe(201);
      const { link } = up.json()[0] as { link: string };
      const down = await inject(other, w.owner.headers, 'GET', link);
      expect(down.statusCode).toBe(200);
      expect(down.rawPayload.equals(data)).toBe(true);
      const range = await inject(other, w.owner.headers, 'GET', link, undefined, { range: 'bytes=100-199' });
      expect([range.statusCode, range.rawPayload.equals(data.subarray(100, 200))]).toEqual([206, true]);

      const image = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
      const { id, link: imageLink } = image.json() as { id: number; link: string };
      expect((await inject(other, w.owner.headers, 'DELETE', `${w.url}/images/${id}`)).statusCode).toBe(204);
      await runJob(other, 'files.deletes');
      expect(await t.app.files.backend.stat(keyOf(imageLink))).toBeNull();
      expectProblem(await t.as(w.owner).get(imageLink), 404, 'NOT_FOUND');
    } finally {
      await other.close();
    }
  });
});

describe('the bucket stops answering', () => {
  it('uploads answer 503 and change nothing, /ready says why; deletes are retried and the sweeper finds nothing once it is back', async () => {
    const w = await world();
    const kept = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
    const doomed = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
    const doomedKey = keyOf(doomed.json().link);
    const rowsBefore = await t.sql(sql`select id, key from files where organization_id = ${w.owner.organizationId} order by id`);

    await t.s3!.stop();
    try {
      const upload = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
      const problem = expectProblem(upload, 503, 'STORAGE_UNAVAILABLE');
      expect(problem.detail).toMatch(/file storage is unavailable/);
      const many = multipart([{ name: 'files[]', data: randomBytes(7 * 1024 * 1024), filename: 'x.bin' }]);
      expectProblem(await t.as(w.owner).request('POST', `${w.url}/files`, many.payload, many.headers), 503, 'STORAGE_UNAVAILABLE');
      expect(await t.sql(sql`select id, key from files where organization_id = ${w.owner.organizationId} order by id`)).toEqual(rowsBefore);
      expectProblem(await t.as(w.owner).get(kept.json().link), 503, 'STORAGE_UNAVAILABLE');

      const ready = await t.as(null).get('/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', storage: 's3', reason: expect.stringMatching(/file storage is unavailable .*ECONNREFUSED/) });

      // The file goes at once; its object waits in the queue until the bucket answers.
      expect((await t.as(w.owner).delete(`${w.url}/images/${doomed.json().id}`)).statusCode).toBe(204);
      const [queued] = await t.sql<{ attempts: number }>(sql`select attempts from file_deletions where key = ${doomedKey}`);
      expect(queued).toEqual({ attempts: 1 });
      await runJob(t.app, 'files.deletes');
    } finally {
      await t.s3!.start();
    }

    expect((await t.as(null).get('/ready')).statusCode).toBe(200);
    // No row points at a missing object.
    for (const row of await t.sql<{ key: string }>(sql`select key::text from files where organization_id = ${w.owner.organizationId}`)) {
      expect(await t.app.files.backend.stat(row.key)).not.toBeNull();
    }
    expect(await t.app.files.backend.stat(doomedKey)).not.toBeNull();
    // The retry is due after its back-off; let that time pass.
    await t.sql(sql`update file_deletions set next_attempt_at = now() where key = ${doomedKey}`);
    await runJob(t.app, 'files.deletes');
    expect(await t.sql(sql`select key from file_deletions where key = ${doomedKey}`)).toEqual([]);
    expect(await t.app.files.backend.stat(doomedKey)).toBeNull();
    const report = await sweepOrphans(t.database.db, t.app.files.backend, { dryRun: true, olderThanMs: 0 });
    expect(report).toMatchObject({ dryRun: true, orphans: [], removed: 0 });
    expect(report.scanned).toBeGreaterThan(0);
  });

  it('the sweeper reports objects no row refers to (dry run), then removes only those', async () => {
    const w = await world();
    const kept = keyOf((await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG })).json().link);
    const stray = '00000000-0000-4000-8000-000000000001';
    const { Readable } = await import('node:stream');
    await t.app.files.backend.write(stray, Readable.from([Buffer.from('left behind')]));
    const dry = await sweepOrphans(t.database.db, t.app.files.backend, { dryRun: true, olderThanMs: 0 });
    expect(dry.orphans.map((o) => o.key)).toEqual([stray]);
    expect(await t.app.files.backend.stat(stray)).not.toBeNull();
    // Younger than the cut-off (a day by default): an upload on its way to a row is never touched.
    expect((await sweepOrphans(t.database.db, t.app.files.backend, { dryRun: true })).orphans).toEqual([]);
    const real = await sweepOrphans(t.database.db, t.app.files.backend, { olderThanMs: 0 });
    expect([real.removed, await t.app.files.backend.stat(stray), (await t.app.files.backend.stat(kept))?.size]).toEqual([1, null, PNG.length]);
  });
});

describe('FILE_STORAGE_READ_FALLBACK while an instance moves to the bucket', () => {
  it('a file that is only in the local directory still downloads; without the fallback it is 404', async () => {
    const w = await world();
    const { LocalBackend } = await import('../../platform/storage/local.js');
    const { Readable } = await import('node:stream');
    const key = '00000000-0000-4000-8000-0000000000f1';
    const data = randomBytes(5000);
    await new LocalBackend(t.config.filesDir).write(key, Readable.from([data]));
    await t.sql(sql`insert into files (organization_id, uploader_id, key, purpose, name, size, mime_type)
      values (${w.owner.organizationId}, ${w.owner.id}, ${key}, 'project-doc-file', 'old.bin', ${data.length}, 'application/octet-stream')`);
    expectProblem(await t.as(w.owner).get(`/files/${key}`), 404, 'NOT_FOUND');
    const moving = await buildApp({ ...t.config, logLevel: 'silent', fileStorageReadFallback: true }, { database: t.database });
    try {
      const res = await inject(moving, w.owner.headers, 'GET', `/files/${key}`, undefined, { range: 'bytes=100-199' });
      expect([res.statusCode, res.rawPayload.equals(data.subarray(100, 200))]).toEqual([206, true]);
    } finally {
      await moving.close();
    }
  });
});
