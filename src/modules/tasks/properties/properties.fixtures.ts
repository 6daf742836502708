import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { TestKit } from '../../../test/app.js';
import { boardWithRoles, expectHistory, expectTaskForm } from '../tasks.fixtures.js';

// Test-only helpers for the task-property tests (no production code imports this).

type Json = Record<string, any>;

/** A board with a reader and a member, and one task in its first column created by the owner. */
export async function taskWithRoles(t: TestKit, extra: Record<string, unknown> = {}) {
  const b = await boardWithRoles(t);
  const task = await b.f.task(b.owner, b.stageIds[0]!, extra);
  return { ...b, taskId: Number(task.id), url: (path: string) => `/tasks/${task.id}/${path}` };
}

/**
 * Asserts a `{task, history}` answer: the status, Task(full), the history form, and that the history
 * row it names is the task's latest one in the database, written by `userId` with `type`.
 */
export async function expectChange(t: TestKit, res: LightMyRequestResponse, status: number, taskId: number, type: number, userId: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as { task: Json; history: Json };
  expectTaskForm(body.task);
  expect(body.task.id).toBe(taskId);
  expectHistory(body.history, taskId, type);
  expect(body.history.userId).toBe(userId);
  const [latest] = await t.sql<{ id: number; type: number; userId: number; state: string }>(
    sql`select id, type, user_id as "userId", state from task_history where task_id = ${taskId} order by id desc limit 1`,
  );
  expect({ id: Number(latest!.id), type: Number(latest!.type), userId: Number(latest!.userId), state: latest!.state }).toEqual({
    id: body.history.id,
    type,
    userId,
    state: body.history.state,
  });
  return body;
}

export async function historyCount(t: TestKit, taskId: number, type: number): Promise<number> {
  const [row] = await t.sql<{ n: number }>(sql`select count(*)::int as n from task_history where task_id = ${taskId} and type = ${type}`);
  return Number(row!.n);
}

export async function taskRow(t: TestKit, taskId: number): Promise<Json> {
  const [row] = await t.sql<Json>(sql`select * from tasks where id = ${taskId}`);
  return row!;
}
