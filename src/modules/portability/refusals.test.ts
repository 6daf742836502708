import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { blobCount } from '../files/files.fixtures.js';
import { edit, pack, resign, unpack, type Entry } from './archive.fixtures.js';
import { exportOrganization, finishJob, uploadArchive } from './portability.fixtures.js';

// Files above 1 MiB are refused here, so an oversized entry is cheap to make.
const t = useTestApp({ fileLimitBytes: 1024 * 1024 });
const f = factories(t);

let owner: TestUser;
let entries: Entry[];

beforeAll(async () => {
  owner = await t.org();
  const space = await f.space(owner);
  const project = await f.project(owner, space.id);
  const stage = await f.stage(owner, project.id);
  await f.task(owner, stage.id, { name: 'Only task' });
  const { archive } = await exportOrganization(t, owner);
  entries = await unpack(archive);
});

/** Uploads the archive and asserts the refusal, and that no row, job, organization or blob was added. */
async function refused(archive: Buffer, status: number, code: string, detail: RegExp) {
  // This user's memberships (an import's organization would be one) and this organization's jobs: other files share a PostgreSQL database.
  const count = async () =>
    (await t.sql<{ n: number }>(sql`select (select count(*) from organization_members where user_id = ${owner.id}) + (select count(*) from portability_jobs where organization_id = ${owner.organizationId}) as n`))[0]!.n;
  const [rows, blobs, before] = [await count(), await blobCount(t), await fingerprint(t, [owner.organizationId], [owner.id])];
  const res = await uploadArchive(t, owner, archive);
  const problem = expectProblem(res, status, code);
  expect(problem.detail).toMatch(detail);
  expect(await count()).toBe(rows);
  expect(await blobCount(t)).toBe(blobs);
  expect(await fingerprint(t, [owner.organizationId], [owner.id])).toBe(before);
}

describe('POST /organization/imports refuses a damaged or hostile archive, keeping nothing', () => {
  it('a table changed after export (checksum)', async () => {
    const tampered = edit(entries, /^tables\/tasks\//, (data) => Buffer.from(data.toString().replace('Only task', 'Evil task')));
    await refused(await pack(tampered), 400, 'ARCHIVE_CHECKSUM_MISMATCH', /tables\/tasks\/000001\.jsonl.*checksum/);
  });

  it('an entry the manifest does not list', async () => {
    const extra = [...entries.slice(0, -1), { name: 'tables/tasks/000002.jsonl', data: Buffer.from('{}\n') }, entries.at(-1)!];
    await refused(await pack(extra), 400, 'ARCHIVE_CHECKSUM_MISMATCH', /000002/);
  });

  it('a file name that escapes its folder (path traversal)', async () => {
    for (const name of ['../../etc/passwd', 'files/../../../tmp/x', '/etc/passwd', 'tables/tasks/../../x.jsonl']) {
      const hostile = [...entries.slice(0, -1), { name, data: Buffer.from('x') }, entries.at(-1)!];
      await refused(await pack(hostile), 400, 'ARCHIVE_UNSAFE', /unexpected entry/);
    }
  });

  it('a decompression bomb, and an entry larger than the file limit', async () => {
    const bomb = [...entries.slice(0, -1), { name: 'tables/tasks/000009.jsonl', data: Buffer.alloc(50 * 1024 * 1024) }, entries.at(-1)!];
    await refused(await pack(bomb), 400, 'ARCHIVE_UNSAFE', /decompression bomb/);
    const big = [...entries.slice(0, -1), { name: 'files/999', data: randomBytes(1024 * 1024 + 1) }, entries.at(-1)!];
    await refused(await pack(big), 400, 'ARCHIVE_UNSAFE', /files\/999.*at most 1048576/);
  });

  it('an archive of another format: a zip, plain gzip, a tar of something else', async () => {
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(200)]);
    await refused(zip, 400, 'ARCHIVE_INVALID', /zip archive/);
    await refused(Buffer.from('id,name\n1,task\n'), 400, 'ARCHIVE_INVALID', /not a gzip/);
    await refused(gzipSync(Buffer.from('just text, not a tar')), 400, 'ARCHIVE_INVALID', /corrupt|no entries/);
    await refused(await pack([{ name: 'manifest.json', data: Buffer.from('{}') }]), 400, 'ARCHIVE_INVALID', /does not start with format\.json/);
  });

  it('an unknown format version, even with a consistent manifest', async () => {
    const future = resign(edit(entries, /^format\.json$/, () => Buffer.from(JSON.stringify({ format: 'workboard-organization-export', version: 99 }))));
    await refused(await pack(future), 400, 'ARCHIVE_VERSION_UNSUPPORTED', /version 99.*version 1/);
  });

  it('an archive cut short (no manifest)', async () => {
    await refused(await pack(entries.slice(0, -1)), 400, 'ARCHIVE_INVALID', /no manifest/);
  });
});

describe('an import that fails while loading', () => {
  it('leaves no organization, no row and no file behind, and says why', async () => {
    // Checksums that agree with rows this database refuses: the failure comes inside the one transaction.
    const bad = resign(edit(entries, /^tables\/tasks\//, (data) => Buffer.from(data.toString().replace(/"importance": ?-?\d/, '"importance": 9'))));
    const organizations = async () => (await t.sql<{ n: number }>(sql`select count(*)::int as n from organization_members where user_id = ${owner.id}`))[0]!.n;
    const [orgs, blobs] = [await organizations(), await blobCount(t)];
    const res = await uploadArchive(t, owner, await pack(bad));
    expect(res.statusCode).toBe(202);
    const job = await finishJob(t, owner, `/organization/imports/${res.json().id}`);
    expect(job).toMatchObject({ status: 'failed', importedOrganizationId: null, report: null });
    expect(job.error).toMatch(/nothing of it was kept$/);
    expect(await organizations()).toBe(orgs);
    expect(await blobCount(t)).toBe(blobs);
  });
});
