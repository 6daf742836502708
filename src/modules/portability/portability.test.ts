import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { expectProblem, fingerprint, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { runJob } from '../../platform/jobs.js';
import { sweepOrphans } from '../../platform/storage/deletions.js';
import { blobCount, multipart } from '../files/files.fixtures.js';
import { eventPayloadSchemas } from '../events/events.catalogue.js';
import { exportOrganization, finishJob, uploadArchive } from './portability.fixtures.js';

const t = useTestApp();
const f = factories(t);

const JOB_KEYS = ['archiveSize', 'createdAt', 'creatorId', 'error', 'expiresAt', 'finishedAt', 'id', 'importedOrganizationId', 'kind', 'processed', 'report', 'status', 'total'];

async function orgWithTask() {
  const owner = await t.org();
  const space = await f.space(owner);
  const project = await f.project(owner, space.id);
  const stage = await f.stage(owner, project.id);
  await f.task(owner, stage.id);
  return owner;
}

async function exported(owner: TestUser) {
  const { archive, job } = await exportOrganization(t, owner);
  return { archive, id: job.id as number };
}

describe('POST /organization/exports', () => {
  it('queues an export that writes the archive with progress, finished events to the requester, and a report', async () => {
    const owner = await orgWithTask();
    const admin = await t.member(owner, 'admin');
    const res = await t.as(admin).post('/organization/exports');
    expect(res.statusCode).toBe(202);
    const queued = res.json();
    expect(Object.keys(queued).sort()).toEqual(JOB_KEYS);
    expect(queued).toMatchObject({ kind: 'export', status: 'queued', creatorId: admin.id, total: 0, processed: 0, archiveSize: null, report: null, expiresAt: null });

    const job = await finishJob(t, admin, `/organization/exports/${queued.id}`);
    expect(job).toMatchObject({ status: 'succeeded', error: null, importedOrganizationId: null });
    expect(job.total).toBeGreaterThan(10);
    expect(job.processed).toBe(job.total);
    expect(job.archiveSize).toBeGreaterThan(500);
    const days = (Date.parse(job.expiresAt as string) - Date.parse(job.finishedAt as string)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);
    expect((job.report as { counts: Record<string, number> }).counts).toMatchObject({ tasks: 1, users: 2, organization_members: 2, storedFiles: 0 });

    const events = await t.sql<{ type: string; user_id: number; payload: unknown }>(
      sql`select type, user_id, payload from events where organization_id = ${owner.organizationId} and type like 'export.%' order by id`,
    );
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['export.progress', 'export.finished']));
    expect(events.at(-1)!.type).toBe('export.finished');
    for (const e of events) {
      expect(Number(e.user_id)).toBe(admin.id);
      const payload = typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload;
      expect(Value.Check(eventPayloadSchemas()[e.type as 'export.finished'], payload)).toBe(true);
    }
  });

  commonCases(t, 'POST /organization/exports', {
    method: 'POST',
    setup: async () => {
      const owner = await orgWithTask();
      return { url: '/organization/exports', owner, forbidden: await t.member(owner, 'member') };
    },
  });
});

describe('GET /organization/exports/{exportId} and /download', () => {
  it('streams the finished archive as a gzip attachment', async () => {
    const owner = await orgWithTask();
    const { archive, id } = await exported(owner);
    const res = await t.as(owner).get(`/organization/exports/${id}/download`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="organization-export-${id}-\\d{4}-\\d{2}-\\d{2}\\.tar\\.gz"$`));
    expect(Number(res.headers['content-length'])).toBe(archive.length);
    expect(archive.subarray(0, 2).toString('hex')).toBe('1f8b');
    // No file row names the archive: the orphan sweeper must still leave it to its job.
    const swept = await sweepOrphans(t.app.database.db, t.app.files.backend, { olderThanMs: 0 });
    const [kept] = await t.sql<{ key: string }>(sql`select archive_key::text as key from portability_jobs where id = ${id}`);
    expect(swept.orphans.map((o) => o.key)).not.toContain(kept!.key);
    expect((await t.as(owner).get(`/organization/exports/${id}/download`)).rawPayload.equals(archive)).toBe(true);
  });

  it('answers 409 before the export is done and 410 once its archive expired (removed by the expiry job)', async () => {
    const owner = await orgWithTask();
    const queued = (await t.as(owner).post('/organization/exports')).json();
    const early = expectProblem(await t.as(owner).get(`/organization/exports/${queued.id}/download`), 409, 'EXPORT_NOT_READY');
    expect(early.detail).toBe('the export is queued; download it once it succeeded');
    await finishJob(t, owner, `/organization/exports/${queued.id}`);
    const blobs = await blobCount(t);
    await t.sql(sql`update portability_jobs set expires_at = now() - interval '1 minute' where id = ${queued.id}`);
    await runJob(t.app, 'portability.expire', { force: true });
    expect(await blobCount(t)).toBe(blobs - 1);
    expect((await t.as(owner).get(`/organization/exports/${queued.id}`)).json()).toMatchObject({ status: 'expired' });
    expectProblem(await t.as(owner).get(`/organization/exports/${queued.id}/download`), 410, 'EXPORT_EXPIRED');
  });

  it('answers 400 to an id that is not one', async () => {
    const owner = await t.org();
    for (const url of ['/organization/exports/abc', '/organization/exports/0/download', '/organization/imports/-1']) {
      const problem = expectProblem(await t.as(owner).get(url), 400, 'VALIDATION_FAILED');
      expect(problem.detail).toEqual(expect.any(String));
    }
  });

  for (const suffix of ['', '/download']) {
    commonCases(t, `GET /organization/exports/{exportId}${suffix}`, {
      method: 'GET',
      setup: async () => {
        const owner = await orgWithTask();
        const { id } = await exported(owner);
        return { url: `/organization/exports/${id}${suffix}`, owner, forbidden: await t.member(owner, 'member') };
      },
    });
  }
});

describe('POST /organization/imports and GET /organization/imports/{importId}', () => {
  it('answers 400 to a multipart body without the file and 415 to JSON, keeping nothing', async () => {
    const owner = await t.org();
    const before = await fingerprint(t, [owner.organizationId], [owner.id]);
    const empty = multipart([{ name: 'note', data: 'no file here' }]);
    const problem = expectProblem(await t.as(owner).request('POST', '/organization/imports', empty.payload, empty.headers), 400, 'VALIDATION_FAILED');
    expect(problem.errors).toEqual([{ path: '/file', message: 'is required' }]);
    expectProblem(await t.as(owner).post('/organization/imports', { archive: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await fingerprint(t, [owner.organizationId], [owner.id])).toBe(before);
  });

  it('imports into a new organization of the caller, who owns it; the job answers with its report', async () => {
    const owner = await orgWithTask();
    const { archive } = await exported(owner);
    const importer = await t.org();
    const res = await uploadArchive(t, importer, archive);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ kind: 'import', status: 'queued', creatorId: importer.id, archiveSize: archive.length, importedOrganizationId: null });
    const job = await finishJob(t, importer, `/organization/imports/${res.json().id}`);
    expect(Object.keys(job).sort()).toEqual(JOB_KEYS);
    expect(job).toMatchObject({ status: 'succeeded', report: { counts: { tasks: 1, usersMatched: 1, usersInvited: 0 } } });
    expect(job.processed).toBe(job.total);
    const [membership] = await t.sql<{ role: string }>(sql`select role from organization_members where organization_id = ${job.importedOrganizationId as number} and user_id = ${importer.id}`);
    // The exporting owner is a person the archive brings: matched by email, now an admin of the copy.
    const roles = await t.sql<{ role: string }>(sql`select role from organization_members where organization_id = ${job.importedOrganizationId as number} and user_id = ${owner.id}`);
    expect([membership!.role, roles[0]!.role]).toEqual(['owner', 'admin']);
    const events = await t.sql<{ type: string }>(sql`select type from events where organization_id = ${importer.organizationId} and type like 'organization.import.%' order by id`);
    // Queued, then (on PostgreSQL, where progress is written beside the import's transaction) running, then finished.
    expect(events.at(0)!.type).toBe('organization.import.progress');
    expect(events.at(-1)!.type).toBe('organization.import.finished');
    expect(events.slice(1, -1).every((e) => e.type === 'organization.import.progress')).toBe(true);
  });

  commonCases(t, 'POST /organization/imports', {
    method: 'POST',
    foreignId: false,
    setup: async () => {
      const owner = await t.org();
      return { url: '/organization/imports', owner, forbidden: await t.member(owner, 'member') };
    },
  });

  commonCases(t, 'GET /organization/imports/{importId}', {
    method: 'GET',
    setup: async () => {
      const owner = await orgWithTask();
      const { archive } = await exported(owner);
      const res = await uploadArchive(t, owner, archive);
      // Finished first: on PostgreSQL a jobs-running app of another test file could otherwise take
      // the queued import while a refused request's before-and-after check is running.
      await finishJob(t, owner, `/organization/imports/${res.json().id}`);
      return { url: `/organization/imports/${res.json().id}`, owner, forbidden: await t.member(owner, 'member') };
    },
  });
});
