import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { useTestApp } from '../../../test/app.js';
import { boardWithRoles, columnTasks, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();

// Positions are stored as ranks with gaps and shown dense (ranks.ts): these check the cases where
// the gaps run out or are absent, through the API, against a model of the column.
describe('task positions as ranks', () => {
  it('keeps the shown order dense and right when insertions at one spot exhaust the gap (the column is renumbered)', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    const model = await tasksIn(t, b.owner, stageId, 3);
    // Each insertion at position 1 halves the gap there: past ten, the column gets fresh gaps.
    for (let i = 0; i < 14; i++) {
      const res = await t.as(b.owner).post('/tasks', { name: `At one ${i}`, stageId, order: '1' });
      expect(res.statusCode).toBe(201);
      const id = res.json().task.id;
      expect(res.json().task.stages[0].order).toBe('1');
      model.splice(1, 0, id);
    }
    expect(await columnTasks(t, stageId)).toEqual(model);
    const shown = await Promise.all(model.map(async (id) => (await t.as(b.owner).get(`/tasks/${id}`)).json().stages[0].order));
    expect(shown).toEqual(model.map((_, i) => String(i)));
  });

  it('inserts at the top, in the middle and past the end of a column written without gaps', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    const model = await tasksIn(t, b.owner, stageId, 4);
    // A bulk writer (sorting, imports, templates) leaves ranks 0..n-1 with no room between them.
    await t.sql(sql`update task_stages set "order" = v.i - 1 from unnest(${`{${model.join(',')}}`}::bigint[]) with ordinality as v(id, i) where task_id = v.id`);
    const [x, y, z] = await tasksIn(t, b.owner, b.stageIds[1]!, 3);
    for (const [id, order] of [[x, 0], [y, 2], [z, 99]] as const) {
      const res = await t.as(b.owner).post('/tasks/move', { taskIds: [id], stageId, order });
      expect(res.statusCode).toBe(200);
      model.splice(Math.min(order, model.length), 0, id!);
      expect(res.json().tasks[0].stages[0].order).toBe(String(model.indexOf(id!)));
    }
    expect(await columnTasks(t, stageId)).toEqual(model);
  });

  it('moves many tasks at once between two neighbours in the order given', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    const model = await tasksIn(t, b.owner, stageId, 2);
    const many = await tasksIn(t, b.owner, b.stageIds[1]!, 12);
    const res = await t.as(b.owner).post('/tasks/move', { taskIds: many, stageId, order: 1 });
    expect(res.statusCode).toBe(200);
    model.splice(1, 0, ...many);
    expect(await columnTasks(t, stageId)).toEqual(model);
    expect(res.json().tasks.map((k: { stages: Array<{ order: string }> }) => k.stages[0]!.order)).toEqual(many.map((_, i) => String(i + 1)));
  });

  it('writes only the placed row: moving the top task of a column leaves the others untouched', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    const [a, ...rest] = await tasksIn(t, b.owner, stageId, 5);
    const before = await t.sql<{ id: number; order: number }>(sql`select task_id as id, "order" from task_stages where stage_id = ${stageId} and task_id <> ${a!} order by task_id`);
    const res = await t.as(b.owner).post('/tasks/move', { taskIds: [a], stageId: b.stageIds[1] });
    expect(res.statusCode).toBe(200);
    const after = await t.sql<{ id: number; order: number }>(sql`select task_id as id, "order" from task_stages where stage_id = ${stageId} order by task_id`);
    expect(after).toEqual(before);
    const shown = await Promise.all(rest.map(async (id) => (await t.as(b.owner).get(`/tasks/${id}`)).json().stages[0].order));
    expect(shown).toEqual(['0', '1', '2', '3']);
  });

  it('keeps ranks unique under concurrent creates at the top and in the middle (a clash is retried)', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    const model = await tasksIn(t, b.owner, stageId, 3);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => t.as(b.owner).post('/tasks', { name: `Racing ${i}`, stageId, order: i % 2 })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(16).fill(201));
    const created = results.map((r) => Number(r.json().task.id));
    const column = await columnTasks(t, stageId);
    expect([...column].sort((x, y) => x - y)).toEqual([...model, ...created].sort((x, y) => x - y));
    // The three older tasks keep their order after everything placed before them.
    expect(column.filter((id) => model.includes(id))).toEqual(model);
    const ranks = await t.sql<{ n: number; d: number }>(sql`select count(*)::int as n, count(distinct "order")::int as d from task_stages where stage_id = ${stageId}`);
    expect(ranks).toEqual([{ n: 19, d: 19 }]);
  });

  it('holds a WIP limit under concurrent creates: the limited column is still locked', async () => {
    const b = await boardWithRoles(t);
    const stageId = b.stageIds[0]!;
    await t.sql(sql`update stages set tasks_limit = 5 where id = ${stageId}`);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => t.as(b.owner).post('/tasks', { name: `Racing ${i}`, stageId })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 400).map((r) => r.json().code)).toEqual(Array(7).fill('STAGE_TASKS_LIMIT'));
    expect(await columnTasks(t, stageId, 'allowed')).toHaveLength(5);
  });

  it.runIf(Boolean(process.env.DATABASE_URL))('renumbers the column a task enters only with the column it leaves locked too (crossing moves cannot deadlock)', async () => {
    const b = await boardWithRoles(t);
    const [into, from] = [b.stageIds[0]!, b.stageIds[1]!];
    const model = await tasksIn(t, b.owner, into, 3);
    const [moving] = await tasksIn(t, b.owner, from, 2);
    // Ranks without gaps: position 1 has no room, so the move renumbers the column it enters.
    await t.sql(sql`update task_stages set "order" = v.i - 1 from unnest(${`{${model.join(',')}}`}::bigint[]) with ordinality as v(id, i) where task_id = v.id`);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from stages where id = $1 for no key update', [from]);
      let settled = false;
      const move = t.as(b.owner).post('/tasks/move', { taskIds: [moving], stageId: into, order: 1 });
      void move.finally(() => (settled = true));
      // The move waits for the column it leaves (another writer holds it) before renumbering. Up to
      // 10 s to get there: under the whole suite on two cores 2 s was once not enough.
      let waiting = 0;
      for (let i = 0; i < 1000 && waiting === 0 && !settled; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const { rows } = await other.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%from stages where id =%for no key update%'`,
        );
        waiting = rows[0]!.n;
      }
      expect({ waiting, settled }).toEqual({ waiting: 1, settled: false });
      await other.query('commit');
      const res = await move;
      expect(res.statusCode).toBe(200);
      model.splice(1, 0, moving!);
      expect(res.json().tasks[0].stages[0].order).toBe('1');
      expect(await columnTasks(t, into)).toEqual(model);
    } finally {
      await other.end();
    }
  });
});
