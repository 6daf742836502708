import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles } from '../tasks.fixtures.js';

const t = useTestApp();

/** A board with three tasks in two columns (one of them archived), people, a label and times. */
async function exported() {
  const b = await boardWithRoles(t, 2);
  const as = t.as(b.owner);
  const label = (await as.post('/labels', { name: 'bug', color: '#FF0000' })).json().id as number;
  const first = await b.f.task(b.owner, b.stageIds[0]!, {
    name: 'Fix "the" roof, now',
    order: 0,
    responsibleUserId: [b.member.id, b.owner.id],
    dateEnd: '2026-05-01T10:00:00.000Z',
    importance: 2,
  });
  await as.post(`/tasks/${first.id}/labels`, { labelId: label });
  expect((await as.patch(`/tasks/${first.id}/set-plan-time`, { planTime: 1.5 })).statusCode).toBe(201);
  const formula = await b.f.task(b.owner, b.stageIds[0]!, { name: '=HYPERLINK("http://evil")', order: 1 });
  const other = await b.f.task(b.owner, b.stageIds[1]!, { name: 'Line one\nline two', order: 0 });
  await as.patch(`/tasks/${other.id}/status`, { status: 1 });
  const gone = await b.f.task(b.owner, b.stageIds[1]!, { name: 'Old news', order: 1 });
  expect((await as.patch(`/tasks/${gone.id}/archive`, { stageId: b.stageIds[1]! })).statusCode).toBe(200);
  return { ...b, first, formula, other, gone, url: `/projects/${b.project.id}/export-csv` };
}

const rowsOf = (body: string): string[][] => parse(body.replace(/^\uFEFF/, ''), { relax_column_count: false });

describe('POST /projects/{projectId}/export-csv', () => {
  it('answers the board as CSV: header, one row per task in board order, names for ids, formulas made plain', async () => {
    const w = await exported();
    const res = await t.as(w.reader).post(w.url, {});
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="project-${w.project.id}-tasks.csv"`);
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = rowsOf(res.body);
    expect(header).toEqual([
      'ID', 'Name', 'Status', 'Column', 'Assignees', 'Members', 'Labels', 'Importance', 'Start', 'Due', 'Planned hours', 'Spent hours',
      'Checklist', 'Subtasks', 'Block reason', 'Colour', 'Creator', 'Created', 'Updated', 'Archived',
    ]);
    expect(rows.map((r) => r[0])).toEqual([w.first.id, w.formula.id, w.other.id].map(String));
    const byName = Object.fromEntries(header!.map((h, i) => [h, rows[0]![i]]));
    expect(byName).toMatchObject({
      Name: 'Fix "the" roof, now',
      Status: 'in work',
      Column: 'Column 1',
      Assignees: expect.stringContaining(w.member.name),
      Labels: 'bug',
      Importance: 'high',
      Due: '2026-05-01T10:00:00.000Z',
      'Planned hours': '1.5',
      Creator: w.owner.name,
      Archived: 'no',
    });
    expect(byName.Assignees!.split(', ').sort()).toEqual([w.member.name, w.owner.name].sort());
    expect(rows[1]![1]).toBe(`'=HYPERLINK("http://evil")`);
    expect(rows[2]!.slice(1, 4)).toEqual(['Line one\nline two', 'done', 'Column 2']);
  });

  it('takes fields in the order given, statuses, due-date bounds, and archived tasks on request (last)', async () => {
    const w = await exported();
    const as = t.as(w.member);
    const some = rowsOf((await as.post(w.url, { fields: ['name', 'id'] })).body);
    expect(some[0]).toEqual(['Name', 'ID']);
    expect(some[1]).toEqual(['Fix "the" roof, now', String(w.first.id)]);
    expect(rowsOf((await as.post(w.url, { fields: ['id'], statuses: [1] })).body)).toEqual([['ID'], [String(w.other.id)]]);
    expect(rowsOf((await as.post(w.url, { fields: ['id'], dateFrom: '2026-05-01', dateTo: '2026-05-01' })).body)).toEqual([['ID'], [String(w.first.id)]]);
    const all = rowsOf((await as.post(w.url, { fields: ['id', 'archived'], archived: true })).body);
    expect(all.slice(1)).toEqual([
      [String(w.first.id), 'no'],
      [String(w.formula.id), 'no'],
      [String(w.other.id), 'no'],
      [String(w.gone.id), 'yes'],
    ]);
  });

  it('answers only the header for a project without tasks, and 404 to an organization member outside the space', async () => {
    const w = await exported();
    const empty = await w.f.project(w.owner, w.space.id, 'Empty');
    expect(rowsOf((await t.as(w.owner).post(`/projects/${empty.id}/export-csv`, { fields: ['id', 'name'] })).body)).toEqual([['ID', 'Name']]);
    const outsider = await t.member(w.owner, 'member');
    expectProblem(await t.as(outsider).post(w.url, {}), 404, 'NOT_FOUND');
  });

  it('refuses unknown or repeated fields and statuses out of range with 400', async () => {
    const w = await exported();
    for (const body of [{ fields: ['password'] }, { fields: ['id', 'id'] }, { fields: [] }, { statuses: [4] }, { archived: 'yes' }, { dateTo: 'soon' }]) {
      expectProblem(await t.as(w.owner).post(w.url, body), 400, 'VALIDATION_FAILED');
    }
  });

  commonCases(t, 'POST /projects/{id}/export-csv', {
    method: 'POST',
    async setup() {
      const b = await boardWithRoles(t, 1);
      return { url: `/projects/${b.project.id}/export-csv`, owner: b.owner, body: { fields: ['id'] }, badBody: { fields: ['nope'] } };
    },
  });
});
