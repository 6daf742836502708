import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { exportPlan } from './catalogue.js';
import { fingerprintArchive, summary } from './fingerprint.js';
import { exportOrganization, finishJob, richOrganization, uploadArchive, useFreshInstance } from './portability.fixtures.js';

const source = useTestApp();
const target = useFreshInstance('roundtrip');

describe('organization export → import into a fresh instance → export', () => {
  it('gives the same fingerprint: every table’s rows with ids remapped, files byte-identical, orders and history', async () => {
    const world = await richOrganization(source);
    const first = await exportOrganization(source, world.owner);
    const before = await fingerprintArchive(first.archive);
    // The fixture must reach every exported table, or the comparison would prove nothing about it.
    const empty = exportPlan().filter((t) => (before.tables[t.name] ?? []).length === 0).map((t) => t.name);
    expect(empty).toEqual([]);

    const importer = await target.org({ email: world.owner.email, name: 'Olga Owner' });
    const res = await uploadArchive(target, importer, first.archive);
    expect(res.statusCode).toBe(202);
    const job = await finishJob(target, importer, `/organization/imports/${res.json().id}`);
    expect(job).toMatchObject({ kind: 'import', status: 'succeeded', error: null });
    const orgId = job.importedOrganizationId as number;
    // The import syncs its tasks' report ledger itself (its triggers queue nothing while it loads).
    const [ledger] = await target.sql<{ queued: number; facts: number }>(sql`select
      (select count(*)::int from analytics_dirty where organization_id = ${orgId}) as queued,
      (select count(*)::int from analytics_facts where organization_id = ${orgId} and kind = 0) as facts`);
    expect(ledger).toEqual({ queued: 0, facts: 4 });
    await target.as(importer).patch('/user/organizations/active', { organizationId: orgId });
    const second = await exportOrganization(target, { ...importer, organizationId: orgId });
    const after = await fingerprintArchive(second.archive);
    expect(summary(after)).toEqual(summary(before));
    expect(after).toEqual(before);

    const report = job.report as { counts: Record<string, number>; skipped: { reason: string; count: number }[] };
    expect(report.counts).toMatchObject({ tasks: 4, usersMatched: 1, usersInvited: 2, storedFiles: 3 });
    expect(report.skipped).toEqual([{ reason: 'webhooks: imported disabled, with a new signing secret (secrets are never exported)', count: 1 }]);
    // Invited people cannot sign in until they set a password.
    const invited = await target.sql<{ hash: string }>(sql`select password_hash as hash from users where email = ${world.member.email}`);
    expect(invited).toEqual([{ hash: '!invited' }]);

    // Once more into the same instance, where every person now exists and every file key is taken.
    const again = await uploadArchive(target, importer, second.archive);
    const copy = await finishJob(target, importer, `/organization/imports/${again.json().id}`);
    expect(copy).toMatchObject({ status: 'succeeded', report: { counts: { usersMatched: 3, usersInvited: 0 } } });
    const copyOrg = copy.importedOrganizationId as number;
    await target.as(importer).patch('/user/organizations/active', { organizationId: copyOrg });
    const third = await exportOrganization(target, { ...importer, organizationId: copyOrg });
    expect(await fingerprintArchive(third.archive)).toEqual(before);
  });
});
