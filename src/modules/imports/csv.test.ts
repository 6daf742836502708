import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp, type TestUser } from '../../test/app.js';
import { boardWithRoles } from '../tasks/tasks.fixtures.js';
import { finishImport } from './imports.fixtures.js';

const t = useTestApp();
const CSV = { 'content-type': 'text/csv; charset=utf-8' };
const post = (user: TestUser | null, url: string, body: string, headers: Record<string, string> = CSV) => t.as(user).request('POST', url, body, headers);

const GOOD = 'Name,Column,Status,Labels,Importance,Due,Planned hours,ID,Created\n' + 'Write spec,Column 2,done,,high,2026-03-01,2.5,17,2025-01-01T00:00:00.000Z\n' + '"Fix, then ship",,,,,,,,\n';

describe('CSV import of tasks', () => {
  it('round-trips the export: a project’s CSV imported into another project gives the same tasks', async () => {
    const b = await boardWithRoles(t);
    const label = (await t.as(b.owner).post('/labels', { name: 'Bug', color: '#ff0000' })).json();
    // The fixtures name every member alike; a name that names two people is refused (tested below).
    await t.sql(sql`update users set name = 'Mia Member' where id = ${b.member.id}`);
    const [c1, c2] = b.stageIds;
    const first = await b.f.task(b.owner, c1!, { name: '=SUM(A1)', responsibleUserId: [b.member.id], dateBegin: '2026-01-02T10:00:00.000Z', dateEnd: '2026-01-05T10:00:00.000Z' });
    await b.f.task(b.owner, c1!, { name: 'Second', order: 1, importance: 3, color: '#00ff00' });
    await b.f.task(b.owner, c2!, { name: 'Third', dateEndWithoutTime: '2026-02-01' });
    expect((await t.as(b.owner).post(`/tasks/${first.id}/labels`, { labelId: label.id })).statusCode).toBe(201);
    const exported = (await t.as(b.owner).post(`/projects/${b.project.id}/export-csv`, {})).body;

    const target = await b.f.project(b.owner, Number(b.space.id), 'Copy');
    for (const [i, name] of ['Column 1', 'Column 2'].entries()) await b.f.stage(b.owner, target.id, name, i);
    const preview = await post(b.member, `/projects/${target.id}/imports/csv/preview`, exported);
    expect(preview.statusCode).toBe(200);
    expect(preview.json().errors).toEqual([]);
    expect(preview.json().rows).toBe(3);
    expect(preview.json().mapping.slice(0, 3)).toEqual([
      { header: 'ID', field: 'id', imported: false },
      { header: 'Name', field: 'name', imported: true },
      { header: 'Status', field: 'status', imported: true },
    ]);
    expect(await t.sql(sql`select id from tasks where project_id = ${target.id}`)).toEqual([]);

    const res = await post(b.member, `/projects/${target.id}/imports/csv`, exported);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ kind: 'csv', status: 'queued', projectId: target.id, total: 3, processed: 0 });
    const job = await finishImport(t, b.member, res.json().id);
    expect(job).toMatchObject({ status: 'succeeded', processed: 3, total: 3 });
    const again = (await t.as(b.owner).post(`/projects/${target.id}/export-csv`, {})).body;
    const strip = (csv: string) => csv.split('\n').map((line) => line.split(',').filter((_, i) => ![0, 16, 17, 18].includes(i)).join(','));
    // Same rows but for id, creator and times; the creator is the importing member.
    expect(strip(again)).toEqual(strip(exported));
    const history = await t.sql<{ type: number; userId: number }>(sql`select h.type, h.user_id as "userId" from task_history h join tasks t on t.id = h.task_id where t.project_id = ${target.id}`);
    expect(history).toEqual([0, 0, 0].map(() => ({ type: 0, userId: b.member.id })));
  });

  it('previews the mapping and every bad row, and refuses the import as a whole with 400 listing them', async () => {
    const b = await boardWithRoles(t);
    const csv =
      'name,Due,Assignees,Colour,Unknown\n' + 'Good,2026-01-01,,,x\n' + ',not a date,Nobody,red,\n' + `${'n'.repeat(501)},2026-01-01T25:00:00Z,,#abcdef,\n` + 'Good too,,,,\n';
    const preview = (await post(b.owner, `/projects/${b.project.id}/imports/csv/preview`, csv)).json();
    expect(preview.mapping).toEqual([
      { header: 'name', field: 'name', imported: true },
      { header: 'Due', field: 'dateEnd', imported: true },
      { header: 'Assignees', field: 'assignees', imported: true },
      { header: 'Colour', field: 'color', imported: true },
      { header: 'Unknown', field: null, imported: false },
    ]);
    expect(preview.errors).toEqual([
      { row: 3, column: 'Name', message: 'must not be empty' },
      { row: 3, column: 'Due', message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time' },
      { row: 3, column: 'Colour', message: 'must be a colour #RRGGBB' },
      { row: 3, column: 'Assignees', message: 'no member "Nobody" here' },
      { row: 4, column: 'Name', message: 'must be at most 500 characters' },
      { row: 4, column: 'Due', message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time' },
    ]);
    const before = await fingerprint(t, [b.owner.organizationId], [b.owner.id]);
    const problem = expectProblem(await post(b.owner, `/projects/${b.project.id}/imports/csv`, csv), 400, 'VALIDATION_FAILED');
    expect(problem.detail).toMatch(/rows 3, 4: nothing was imported/);
    expect(problem.errors).toContainEqual({ path: '/rows/3/Assignees', message: 'no member "Nobody" here' });
    expect(await fingerprint(t, [b.owner.organizationId], [b.owner.id])).toBe(before);
  });

  it('undoes an import that fails half-way: the tasks of batches already committed are removed', async () => {
    const b = await boardWithRoles(t);
    const [c1] = b.stageIds;
    const kept = await b.f.task(b.owner, c1!, { name: 'Kept' });
    const csv = `Name\n${Array.from({ length: 60 }, (_, i) => `Row ${i}`).join('\n')}\n`;
    const queued = (await post(b.owner, `/projects/${b.project.id}/imports/csv`, csv)).json();
    // The column's limit changes between the upload and the run: the second batch no longer fits.
    await t.sql(sql`update stages set tasks_limit = 55 where id = ${c1!}`);
    const job = await finishImport(t, b.owner, queued.id);
    expect(job).toMatchObject({ status: 'failed', processed: 0, error: 'column "Column 1" holds at most 55 tasks; nothing of it was kept' });
    const rows = await t.sql<{ id: number; order: number }>(sql`select task_id as id, "order" from task_stages where stage_id = ${c1!}`);
    expect(rows.map((r) => [Number(r.id), Number(r.order)])).toEqual([[kept.id, 0]]);
    expect(await t.sql(sql`select id from tasks where project_id = ${b.project.id} and id <> ${kept.id}`)).toEqual([]);
  });

  it('fails a job lost with its process and removes the tasks it had written', async () => {
    const b = await boardWithRoles(t);
    const queued = (await post(b.owner, `/projects/${b.project.id}/imports/csv`, GOOD)).json();
    const written = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Written by the lost run' });
    await t.sql(sql`update import_jobs set status = 'running', heartbeat_at = now() - interval '1 hour',
                    payload = jsonb_set(payload, '{created}', ${JSON.stringify([written.id])}::jsonb) where id = ${queued.id}`);
    const job = await finishImport(t, b.owner, queued.id);
    expect(job).toMatchObject({ status: 'failed', error: 'the import stopped with its process; start it again' });
    expect(await t.sql(sql`select id from tasks where id = ${written.id}`)).toEqual([]);
  });

  it('refuses a CSV without a Name column, an unreadable one and one of another content type', async () => {
    const b = await boardWithRoles(t);
    const url = `/projects/${b.project.id}/imports/csv`;
    expect(expectProblem(await post(b.owner, url, 'Title\nx\n'), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/rows/1', message: 'a "Name" column is required' }]);
    expectProblem(await post(b.owner, url, 'Name\n"unclosed\n'), 400, 'VALIDATION_FAILED');
    expectProblem(await post(b.owner, url, ''), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(b.owner).post(url, { csv: 'Name\nx' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  for (const path of ['csv', 'csv/preview']) {
    describe(`POST /projects/{projectId}/imports/${path}: common cases`, () => {
      const setup = async () => {
        const b = await boardWithRoles(t);
        return { b, url: `/projects/${b.project.id}/imports/${path}`, before: await fingerprint(t, [b.owner.organizationId], [b.owner.id, b.reader.id]) };
      };
      const unchanged = async (b: Awaited<ReturnType<typeof boardWithRoles>>, before: string) =>
        expect(await fingerprint(t, [b.owner.organizationId], [b.owner.id, b.reader.id])).toBe(before);

      it('answers 401 without a credential, 404 to another organization, 403 to a reader, 400 to a bad body; nothing changes', async () => {
        const { b, url, before } = await setup();
        expectProblem(await post(null, url, GOOD), 401, 'UNAUTHENTICATED');
        const stranger = await t.org();
        expectProblem(await post(stranger, url, GOOD), 404, 'NOT_FOUND');
        expectProblem(await post(b.reader, url, GOOD), 403, 'FORBIDDEN');
        expect(typeof expectProblem(await post(b.owner, url, ''), 400, 'VALIDATION_FAILED').detail).toBe('string');
        expectProblem(await post(b.owner, `/projects/0/imports/${path}`, GOOD), 400, 'VALIDATION_FAILED');
        await unchanged(b, before);
      });
    });
  }
});
