import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../../test/app.js';
import { boardWithRoles, columnTasks, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();

describe('POST /tasks/move under concurrency', () => {
  it('32 concurrent moves within and between two columns leave both columns dense 0..n-1 and unique', async () => {
    const b = await boardWithRoles(t);
    const [left, right] = b.stageIds as [number, number];
    const all = [...(await tasksIn(t, b.owner, left, 8)), ...(await tasksIn(t, b.owner, right, 8))];

    const requests = Array.from({ length: 32 }, (_, i) => {
      const one = all[(i * 7) % 16]!;
      // Every fourth request moves two tasks at once, so bulk moves race single ones.
      const taskIds = i % 4 === 0 ? [one, all[(i * 7 + 5) % 16]!] : [one];
      return t.as(i % 3 === 0 ? b.member : b.owner).post('/tasks/move', { taskIds, stageId: i % 2 === 0 ? left : right, order: (i * 3) % 10 });
    });
    const results = await Promise.all(requests);
    expect(results.map((r) => (r.statusCode === 200 ? 200 : `${r.statusCode} ${r.body}`))).toEqual(Array(32).fill(200));

    // Concurrent placements between the same neighbours may take the same rank (the task id then
    // orders them); what the API shows must still be each column's dense 0..n-1, in board order.
    const columns = [await columnTasks(t, left, 'allowed'), await columnTasks(t, right, 'allowed')];
    for (const [i, ids] of columns.entries()) {
      const stageId = [left, right][i]!;
      const shown = await Promise.all(ids.map(async (id) => (await t.as(b.owner).get(`/tasks/${id}`)).json().stages.find((s: { stageId: string }) => Number(s.stageId) === stageId)?.order));
      expect(shown).toEqual(ids.map((_, k) => String(k)));
    }
    const placed = columns.flat();
    expect([...placed].sort((a, c) => a - c)).toEqual([...all].sort((a, c) => a - c));
    const rows = await t.sql<{ n: number }>(sql`select count(*)::int as n from task_stages where task_id = any(${`{${all.join(',')}}`}::bigint[])`);
    expect(rows[0]!.n).toBe(16);
    const moves = await t.sql<{ n: number }>(sql`select count(*)::int as n from task_history where type = 3 and task_id = any(${`{${all.join(',')}}`}::bigint[])`);
    expect(moves[0]!.n).toBe(32 + 8);
  });
});
