import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { countPackets } from '../../test/queries.js';
import { expectTaskForm } from './tasks.fixtures.js';

// How many times the hottest task operations wait for PostgreSQL: each round trip costs the service
// a socket write and a wake-up and the database the same (docs/performance.md). Pipelined statements
// travel in one packet. The fewest packets of three tries is taken: a background job (the analytics
// drain, the rate limiter) may borrow the same connection right after the request's transaction.
const t = useTestApp();
const f = factories(t);

async function fewestPackets(run: () => Promise<void>): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < 3; i++) fewest = Math.min(fewest, await countPackets(run));
  return fewest;
}

describe.skipIf(!process.env.DATABASE_URL)('round trips of the hottest task operations (PostgreSQL)', () => {
  it('a create, at a position or appended, is three: BEGIN with the checks, the insert, the events with the COMMIT', async () => {
    const { owner, stages } = await f.board(1);
    for (const order of [0, undefined]) {
      const packets = await fewestPackets(async () => {
        const res = await t.as(owner).post('/tasks', { name: 'Counted', stageId: stages[0]!.id, order });
        expect(res.statusCode).toBe(201);
        expectTaskForm(res.json().task);
      });
      expect(packets).toBe(3);
    }
  });

  it('a move is three (BEGIN with the checks and the placements read; the placement, history and answer; the events with the COMMIT), a task read without the cache one', async () => {
    const { owner, stages } = await f.board(2);
    const task = await f.task(owner, stages[0]!.id);
    let to = 1;
    const moved = await fewestPackets(async () => {
      const res = await t.as(owner).post('/tasks/move', { taskIds: [task.id], stageId: stages[to]!.id, order: 0 });
      expect([res.statusCode, res.json().tasks[0].stages[0].stageId]).toEqual([200, stages[to]!.id]);
      to = 1 - to;
    });
    expect(moved).toBe(3);
    const read = await fewestPackets(async () => {
      const res = await t.as(owner).get(`/tasks/${task.id}`, { 'cache-control': 'no-cache' });
      expect([res.statusCode, res.json().id]).toEqual([200, task.id]);
    });
    expect(read).toBe(1);
  });
});
