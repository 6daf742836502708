import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, columnTasks, historyOf } from '../tasks.fixtures.js';

const t = useTestApp();

/** A column with four tasks a, b, c, d (board order) carrying distinct sort values, some empty. */
async function column() {
  const b = await boardWithRoles(t);
  const stageId = b.stageIds[0]!;
  const make = async (name: string, extra: Record<string, unknown>) => Number((await b.f.task(b.owner, stageId, { name, ...extra })).id);
  // Each new task goes to the top (order 0), so create in reverse to read a, b, c, d.
  const d = await make('d', { importance: 1, color: '#00FF00', dateEnd: '2026-05-01T00:00:00Z' });
  const c = await make('c', { importance: -1, dateEnd: '2026-04-01T00:00:00Z', responsibleUserId: [b.member.id] });
  const bb = await make('b', { importance: 3, color: '#0000ff' });
  const a = await make('a', { importance: 1, color: '#FF0000', dateEndWithoutTime: '2026-04-15', responsibleUserId: [b.owner.id] });
  await t.sql(sql`update users set name = 'Zed' where id = ${b.member.id}`);
  await t.sql(sql`update users set name = 'amy' where id = ${b.owner.id}`);
  expect(await columnTasks(t, stageId)).toEqual([a, bb, c, d]);
  return { ...b, stageId, a, b2: bb, c, d, url: `/projects/${b.project.id}/stages/${stageId}/sort` };
}

describe('PATCH /projects/{projectId}/stages/{stageId}/sort', () => {
  it('rewrites the column order once (200 [{taskId, order}]), empty values last, ties by current order, no history', async () => {
    const k = await column();
    const res = await t.as(k.member).patch(k.url, { by: 'dateEnd' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { taskId: k.c, order: '0' },
      { taskId: k.a, order: '1' },
      { taskId: k.d, order: '2' },
      { taskId: k.b2, order: '3' },
    ]);
    expect(await columnTasks(t, k.stageId)).toEqual([k.c, k.a, k.d, k.b2]);
    expect(await historyOf(t, k.a)).toEqual([{ type: 0, userId: k.owner.id }]);

    const order = async (body: object) => (await t.as(k.member).patch(k.url, body)).json().map((x: { taskId: number }) => x.taskId);
    // Importance: most important first by default; ties (a, d) keep the order the last sort left.
    expect(await order({ by: 'importance' })).toEqual([k.b2, k.a, k.d, k.c]);
    expect(await order({ by: 'importance', direction: 'asc' })).toEqual([k.a, k.d, k.b2, k.c]);
    expect(await order({ by: 'color', direction: 'desc' })).toEqual([k.a, k.d, k.b2, k.c]);
    expect(await order({ by: 'assignee' })).toEqual([k.a, k.c, k.d, k.b2]);
    expect(await order({ by: 'createdAt', direction: 'desc' })).toEqual([k.a, k.b2, k.c, k.d]);
    expect(await columnTasks(t, k.stageId)).toEqual([k.a, k.b2, k.c, k.d]);
  });

  it('leaves archived tasks out and answers 404 for a column of another project', async () => {
    const k = await column();
    await t.as(k.owner).patch(`/tasks/${k.c}/archive`, { stageId: k.stageId });
    expect((await t.as(k.owner).patch(k.url, { by: 'createdAt' })).json().map((x: { taskId: number }) => x.taskId)).toEqual([k.d, k.b2, k.a]);
    const other = await k.f.project(k.owner, Number(k.space.id), 'Other');
    expectProblem(await t.as(k.owner).patch(`/projects/${other.id}/stages/${k.stageId}/sort`, { by: 'color' }), 404);
  });

  commonCases(t, 'PATCH /projects/{projectId}/stages/{stageId}/sort', {
    method: 'PATCH',
    async setup() {
      const k = await column();
      return { url: k.url, owner: k.owner, body: { by: 'importance' }, badBody: { by: 'name' }, forbidden: k.reader };
    },
  });
});
