import { sql } from 'drizzle-orm';
import type { TestKit, TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';

// Test-only helpers for the board. Tasks are created through the tasks module's API, so the rows
// (task_stages, history) are the ones the service really writes.

export const STAGE_KEYS = ['color', 'id', 'name', 'order', 'projectId', 'tasksLimit'];

/** A task appended to a column through POST /tasks (archived after, when asked: it keeps its column, no position). */
export async function seedTask(t: TestKit, owner: TestUser, stageId: number, opts: { name?: string; archived?: boolean } = {}): Promise<number> {
  const task = await factories(t).task(owner, stageId, { name: opts.name ?? 'Task', order: 999_999_999 });
  if (opts.archived) {
    const res = await t.as(owner).patch(`/tasks/${task.id}/archive`, { stageId });
    if (res.statusCode !== 200) throw new Error(`archiving failed: ${res.statusCode} ${res.body}`);
  }
  return Number(task.id);
}

/** Task ids of a column in board order (the tasks module's check of its ranks). */
export { columnTasks } from '../tasks/tasks.fixtures.js';

/** Column ids of a project in order, checking positions are dense. */
export async function projectColumns(t: TestKit, projectId: number): Promise<number[]> {
  const rows = await t.sql<{ id: number; order: number }>(sql`select id, "order" from stages where project_id = ${projectId} order by "order", id`);
  rows.forEach((r, i) => {
    if (r.order !== i) throw new Error(`project ${projectId} column positions are not dense: ${JSON.stringify(rows)}`);
  });
  return rows.map((r) => Number(r.id));
}

/** A board (owner, space, project, columns) plus a space reader and a space member who may not shape it. */
export async function boardWithRoles(t: TestKit, columns = 2) {
  const f = factories(t);
  const board = await f.board(columns);
  const reader = await f.spaceMember(board.owner, board.space.id, 'reader');
  const member = await f.spaceMember(board.owner, board.space.id, 'member');
  return { ...board, reader, member, f };
}
