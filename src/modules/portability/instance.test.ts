import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it, inject } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, useTestApp } from '../../test/app.js';
import { unpack } from './archive.fixtures.js';
import { backupInstance, restoreInstance } from './instance.js';
import { richOrganization, useFreshInstance } from './portability.fixtures.js';
import { readFile } from 'node:fs/promises';

const source = useTestApp();
const target = useFreshInstance('restore');
const tmp = () => path.join(inject('tmpDir'), `backup-${randomUUID()}.tar.gz`);

/** Every entry of a backup and its digest, as its manifest lists them. */
async function contents(file: string) {
  const entries = await unpack(await readFile(file));
  const manifest = JSON.parse(entries.find((e) => e.name === 'manifest.json')!.data.toString());
  return { entries: manifest.entries as Record<string, unknown>, tables: manifest.tables as Record<string, { rows: number }> };
}

describe('npm run backup / npm run restore (the whole instance)', () => {
  it('restores every table and file as it was, ids, password hashes and sessions included', async () => {
    const world = await richOrganization(source);
    const first = tmp();
    await backupInstance(source.app, first);
    const manifest = await restoreInstance(target.app, first);
    expect(manifest.tables.users!.rows).toBeGreaterThanOrEqual(3);
    const second = tmp();
    await backupInstance(target.app, second);
    const [a, b] = [await contents(first), await contents(second)];
    expect(b.tables).toEqual(a.tables);
    expect(b.entries).toEqual(a.entries);
    // The report ledger is left out of the backup and synced by the restore itself, nothing queued.
    const [ledger] = await target.sql<{ queued: number; facts: number }>(sql`select (select count(*)::int from analytics_dirty) as queued,
      (select count(*)::int from analytics_facts f join tasks t on t.id = f.task_id where f.kind = 0) as facts`);
    expect(ledger).toEqual({ queued: 0, facts: Number((await target.sql<{ n: number }>(sql`select count(*)::int as n from task_stages`))[0]!.n) });

    // The restored instance is the same instance: people sign in with their passwords, and new rows get new ids.
    const login = await target.as(null).post('/auth/login', { email: world.member.email, password: PASSWORD });
    expect(login.statusCode).toBe(201);
    const session = { ...world.owner, headers: { 'service-session': world.owner.session } };
    const space = await target.as(session).post('/spaces', { name: 'After restore' });
    expect(space.statusCode).toBe(201);
    expect(space.json().id).toBeGreaterThan(world.space.id);
  });

  it('refuses to restore into an instance that has users', async () => {
    const file = tmp();
    await backupInstance(source.app, file);
    await expect(restoreInstance(source.app, file)).rejects.toThrow(/restore needs an instance without users or organizations/);
  });
});
