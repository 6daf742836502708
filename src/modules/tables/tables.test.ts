import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { boardWithRoles, spaceMember } from '../tasks/tasks.fixtures.js';

const t = useTestApp();

const COLUMN_KEYS = ['createdAt', 'id', 'name', 'options', 'order', 'projectId', 'type', 'updatedAt', 'width'];
const ROW_KEYS = ['cells', 'createdAt', 'id', 'order', 'projectId', 'updatedAt'];

/** A project with an editor and one column of every type. */
async function table() {
  const b = await boardWithRoles(t);
  const editor = await spaceMember(t, b.owner, Number(b.space.id), 'editor');
  const base = `/projects/${b.project.id}`;
  const col: Record<string, number> = {};
  for (const type of ['text', 'number', 'date', 'checkbox', 'select', 'user', 'task', 'url']) {
    const res = await t.as(editor).post(`${base}/table-columns`, { name: type, type, ...(type === 'select' ? { options: ['low', 'high'] } : {}) });
    expect(res.statusCode).toBe(201);
    col[type] = res.json().id;
  }
  const taskId = Number((await b.f.task(b.owner, b.stageIds[0]!)).id);
  return { ...b, editor, base, col, taskId };
}

const columnOrder = async (projectId: number) =>
  (await t.sql<{ id: number; order: number }>(sql`select id, "order" from table_columns where project_id = ${projectId} order by "order"`)).map((r) => [Number(r.id), Number(r.order)]);

describe('table columns', () => {
  it('adds columns (201 TableColumn) at dense positions and reads them in GET …/table', async () => {
    const k = await table();
    const res = await t.as(k.editor).post(`${k.base}/table-columns`, { name: 'First', type: 'text', order: 0, width: 120 });
    expect(res.statusCode).toBe(201);
    const column = res.json();
    expect(Object.keys(column).sort()).toEqual(COLUMN_KEYS);
    expect(column).toMatchObject({ projectId: k.project.id, name: 'First', type: 'text', options: [], width: 120, order: '0' });
    const order = await columnOrder(Number(k.project.id));
    expect(order.map(([, o]) => o)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(order[0]![0]).toBe(column.id);

    const read = await t.as(k.reader).get(`${k.base}/table`);
    expect(read.statusCode).toBe(200);
    expect(read.json().columns.map((c: { name: string }) => c.name)).toEqual(['First', 'text', 'number', 'date', 'checkbox', 'select', 'user', 'task', 'url']);
    expect(read.json().rows).toEqual([]);
    expect(read.headers['x-total-count']).toBe('0');
    expectProblem(await t.as(k.editor).post(`${k.base}/table-columns`, { name: 'X', type: 'text', options: ['a'] }), 400, 'VALIDATION_FAILED');
  });

  it('updates a column; a new type empties it, removed options empty their cells; order moves it', async () => {
    const k = await table();
    const row = (await t.as(k.member).post(`${k.base}/table-rows`, { cells: { [k.col.select!]: 'high', [k.col.number!]: 5 } })).json();
    const res = await t.as(k.editor).patch(`${k.base}/table-columns/${k.col.select}`, { name: 'Priority', options: ['low'], width: 300, order: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: k.col.select, name: 'Priority', options: ['low'], width: 300, order: '0' });
    expect((await columnOrder(Number(k.project.id))).map(([, o]) => o)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const retyped = await t.as(k.editor).patch(`${k.base}/table-columns/${k.col.number}`, { type: 'text' });
    expect(retyped.json()).toMatchObject({ type: 'text', options: [] });
    const [after] = (await t.as(k.reader).get(`${k.base}/table`)).json().rows;
    expect(after).toMatchObject({ id: row.id, cells: {} });
  });

  it('deletes a column (204), dropping its cells from rows', async () => {
    const k = await table();
    const row = (await t.as(k.member).post(`${k.base}/table-rows`, { cells: { [k.col.text!]: 'keep', [k.col.checkbox!]: true } })).json();
    const res = await t.as(k.editor).delete(`${k.base}/table-columns/${k.col.checkbox}`);
    expect(res.statusCode).toBe(204);
    const [stored] = await t.sql<{ cells: Record<string, unknown> }>(sql`select cells from table_rows where id = ${row.id}`);
    expect(stored!.cells).toEqual({ [String(k.col.text)]: 'keep' });
    expect((await columnOrder(Number(k.project.id))).map(([, o]) => o)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expectProblem(await t.as(k.editor).delete(`${k.base}/table-columns/${k.col.checkbox}`), 404);
  });

  commonCases(t, 'POST /projects/{projectId}/table-columns', {
    method: 'POST',
    async setup() {
      const k = await table();
      return { url: `${k.base}/table-columns`, owner: k.editor, body: { name: 'C', type: 'number' }, badBody: { name: 'C', type: 'formula' }, forbidden: k.member };
    },
  });
  commonCases(t, 'PATCH /projects/{projectId}/table-columns/{columnId}', {
    method: 'PATCH',
    async setup() {
      const k = await table();
      return { url: `${k.base}/table-columns/${k.col.text}`, owner: k.editor, body: { width: 90 }, badBody: { width: 5 }, forbidden: k.member };
    },
  });
  commonCases(t, 'DELETE /projects/{projectId}/table-columns/{columnId}', {
    method: 'DELETE',
    async setup() {
      const k = await table();
      return { url: `${k.base}/table-columns/${k.col.text}`, owner: k.editor, forbidden: k.member };
    },
  });
});

describe('table rows', () => {
  it('adds a row (201 TableRow) with cells of every type', async () => {
    const k = await table();
    const cells = {
      [k.col.text!]: 'hello',
      [k.col.number!]: 2.5,
      [k.col.date!]: '2026-02-28',
      [k.col.checkbox!]: false,
      [k.col.select!]: 'low',
      [k.col.user!]: k.member.id,
      [k.col.task!]: k.taskId,
      [k.col.url!]: 'https://example.com/a?b=c',
    };
    const res = await t.as(k.member).post(`${k.base}/table-rows`, { cells });
    expect(res.statusCode).toBe(201);
    const row = res.json();
    expect(Object.keys(row).sort()).toEqual(ROW_KEYS);
    expect(row).toMatchObject({ projectId: k.project.id, order: '0', cells: Object.fromEntries(Object.entries(cells).map(([key, v]) => [String(key), v])) });
    const first = (await t.as(k.member).post(`${k.base}/table-rows`, { order: 0 })).json();
    expect(first).toMatchObject({ order: '0', cells: {} });
    const read = await t.as(k.reader).get(`${k.base}/table?limit=1`);
    expect(read.json().rows.map((r: { id: number }) => r.id)).toEqual([first.id]);
    expect(read.headers['x-total-count']).toBe('2');
    expect(read.headers.link).toContain('offset=1');
  });

  it('refuses cells that do not fit their column with 400 naming them, adding nothing', async () => {
    const k = await table();
    const outsider = await t.member(k.owner, 'member');
    const other = await k.f.project(k.owner, Number(k.space.id), 'Other');
    const otherTask = Number((await k.f.task(k.owner, Number((await k.f.stage(k.owner, Number(other.id))).id))).id);
    const bad: Array<[number, unknown]> = [
      [k.col.number!, 'five'],
      [k.col.date!, '2026-02-30'],
      [k.col.checkbox!, 'yes'],
      [k.col.select!, 'medium'],
      [k.col.url!, 'javascript:alert(1)'],
      [k.col.task!, otherTask],
      [k.col.user!, outsider.id],
      [999999999, 'x'],
    ];
    for (const [column, value] of bad) {
      const problem = expectProblem(await t.as(k.member).post(`${k.base}/table-rows`, { cells: { [column]: value } }), 400, 'VALIDATION_FAILED');
      expect((problem.errors as Array<{ path: string }>)[0]!.path).toMatch(/^\/cells/);
    }
    expect(await t.sql(sql`select id from table_rows where project_id = ${k.project.id}`)).toEqual([]);
  });

  it('updates cells (null empties one, others kept) and moves the row; deletes it (204) closing ranks', async () => {
    const k = await table();
    const a = (await t.as(k.member).post(`${k.base}/table-rows`, { cells: { [k.col.text!]: 'a', [k.col.number!]: 1 } })).json();
    const b = (await t.as(k.member).post(`${k.base}/table-rows`, {})).json();
    const res = await t.as(k.member).patch(`${k.base}/table-rows/${a.id}`, { cells: { [k.col.number!]: null, [k.col.checkbox!]: true }, order: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: a.id, order: '1', cells: { [String(k.col.text)]: 'a', [String(k.col.checkbox)]: true } });
    expect(Object.keys(res.json().cells)).toHaveLength(2);
    expect((await t.as(k.member).delete(`${k.base}/table-rows/${b.id}`)).statusCode).toBe(204);
    const rows = await t.sql<{ id: number; order: number }>(sql`select id, "order" from table_rows where project_id = ${k.project.id}`);
    expect(rows.map((r) => [Number(r.id), Number(r.order)])).toEqual([[a.id, 0]]);
  });

  commonCases(t, 'POST /projects/{projectId}/table-rows', {
    method: 'POST',
    async setup() {
      const k = await table();
      return { url: `${k.base}/table-rows`, owner: k.member, body: { cells: { [k.col.text!]: 'x' } }, badBody: { cells: { [k.col.number!]: 'x' } }, forbidden: k.reader };
    },
  });
  commonCases(t, 'PATCH /projects/{projectId}/table-rows/{rowId}', {
    method: 'PATCH',
    async setup() {
      const k = await table();
      const row = (await t.as(k.member).post(`${k.base}/table-rows`, {})).json();
      return { url: `${k.base}/table-rows/${row.id}`, owner: k.member, body: { cells: { [k.col.text!]: 'y' } }, badBody: { order: -1 }, forbidden: k.reader };
    },
  });
  commonCases(t, 'DELETE /projects/{projectId}/table-rows/{rowId}', {
    method: 'DELETE',
    async setup() {
      const k = await table();
      const row = (await t.as(k.member).post(`${k.base}/table-rows`, {})).json();
      return { url: `${k.base}/table-rows/${row.id}`, owner: k.member, forbidden: k.reader };
    },
  });
  commonCases(t, 'GET /projects/{projectId}/table', {
    method: 'GET',
    async setup() {
      const k = await table();
      return { url: `${k.base}/table`, owner: k.reader };
    },
  });
});
