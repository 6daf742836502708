import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import type { TestKit, TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';

// Test-only helpers for the tasks module's tests (no production code imports this).

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const NUMERIC = /^[0-9]+$/;

export const TASK_KEYS = [
  'blockReason', 'checklist', 'color', 'cover', 'createdAt', 'creatorId', 'dateBegin', 'dateBeginWithoutTime', 'dateEnd', 'dateEndWithoutTime',
  'dateMove', 'dateStatusChanged', 'factTime', 'hasDescription', 'hasMessages', 'id', 'importance', 'inspectors', 'list', 'members', 'name',
  'parentTaskIds', 'planTime', 'responsibleUserId', 'stages', 'status', 'tags', 'updatedAt',
];
export const ARCHIVE_KEYS = [
  'blockReason', 'color', 'createdAt', 'creatorId', 'dateBegin', 'dateEnd', 'dateMove', 'dateStatusChanged', 'hasDescription', 'hasMessages', 'id',
  'importance', 'members', 'name', 'responsibleUserId', 'stages', 'status', 'tags', 'updatedAt',
];
export const COLOR_KEYS = [
  'blockReason', 'color', 'createdAt', 'creatorId', 'dateBegin', 'dateEnd', 'dateMove', 'dateStatusChanged', 'hasDescription', 'hasMessages', 'id',
  'members', 'name', 'order', 'responsibleUserId', 'spaceId', 'stageId', 'status', 'tags', 'updatedAt',
];
export const HISTORY_KEYS = ['commitLink', 'commitName', 'id', 'projectName', 'state', 'taskId', 'taskName', 'type', 'updateDate', 'userId'];

type Json = Record<string, unknown>;
const keys = (o: unknown) => Object.keys(o as object).sort();
const isInt = (v: unknown) => Number.isInteger(v);
const isoOrNull = (v: unknown) => v === null || (typeof v === 'string' && ISO_MS.test(v));
const dayOrNull = (v: unknown) => v === null || (typeof v === 'string' && DAY.test(v));
const strOrNull = (v: unknown) => v === null || typeof v === 'string';
const intArray = (v: unknown) => Array.isArray(v) && v.every(isInt);
const strArray = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && NUMERIC.test(x));

/** Task(full): exact key set and the type of every field (service-interface.md + routes.md's `inspectors`). */
export function expectTaskForm(task: Json): void {
  expect(keys(task)).toEqual(TASK_KEYS);
  const ok = {
    id: isInt(task.id),
    createdAt: ISO_MS.test(String(task.createdAt)),
    updatedAt: ISO_MS.test(String(task.updatedAt)),
    name: typeof task.name === 'string',
    creatorId: task.creatorId === null || isInt(task.creatorId),
    color: strOrNull(task.color),
    status: isInt(task.status),
    dates: [task.dateBegin, task.dateEnd, task.dateMove, task.dateStatusChanged].every(isoOrNull),
    days: [task.dateBeginWithoutTime, task.dateEndWithoutTime].every(dayOrNull),
    blockReason: strOrNull(task.blockReason),
    importance: isInt(task.importance),
    stages:
      Array.isArray(task.stages) &&
      (task.stages as Json[]).every(
        (s) => keys(s).join() === 'order,pinned,projectId,stageId' && isInt(s.stageId) && isInt(s.projectId) && typeof s.pinned === 'boolean' && (s.order === null || (typeof s.order === 'string' && NUMERIC.test(s.order))),
      ),
    arrays: [task.tags, task.parentTaskIds, task.responsibleUserId, task.members].every(intArray),
    flags: typeof task.hasMessages === 'boolean' && typeof task.hasDescription === 'boolean',
    list:
      Array.isArray(task.list) &&
      (task.list as Json[]).every((s) => keys(s).join() === 'childTaskId,id,isChecked,name,order,taskId' && typeof s.order === 'string' && typeof s.isChecked === 'boolean'),
    checklist: keys(task.checklist).join() === 'items,itemsChecked' && isInt((task.checklist as Json).items) && isInt((task.checklist as Json).itemsChecked),
    cover: task.cover === null || keys(task.cover).join() === 'dominantColor,height,id,pictureUid,taskId,width',
    times: typeof task.planTime === 'number' && typeof task.factTime === 'number',
    inspectors:
      Array.isArray(task.inspectors) &&
      (task.inspectors as Json[]).every((i) => keys(i).join() === 'comment,status,updatedAt,userId' && isInt(i.userId) && isInt(i.status) && ISO_MS.test(String(i.updatedAt))),
  };
  expect(ok).toEqual(Object.fromEntries(Object.keys(ok).map((k) => [k, true])));
}

export function expectArchiveForm(task: Json): void {
  expect(keys(task)).toEqual(ARCHIVE_KEYS);
  expect({
    stringArrays: [task.stages, task.tags, task.responsibleUserId, task.members].every(strArray),
    ints: [task.id, task.status, task.importance].every(isInt),
    dates: [task.dateBegin, task.dateEnd, task.dateMove, task.dateStatusChanged].every(isoOrNull) && ISO_MS.test(String(task.createdAt)),
  }).toEqual({ stringArrays: true, ints: true, dates: true });
}

export function expectColorForm(task: Json): void {
  expect(keys(task)).toEqual(COLOR_KEYS);
  expect({
    color: typeof task.color === 'string',
    order: typeof task.order === 'string' && NUMERIC.test(task.order as string),
    ints: [task.id, task.spaceId, task.stageId, task.status].every(isInt),
    arrays: [task.members, task.responsibleUserId, task.tags].every(intArray),
    dates: [task.dateBegin, task.dateEnd, task.dateMove, task.dateStatusChanged].every(isoOrNull),
  }).toEqual({ color: true, order: true, ints: true, arrays: true, dates: true });
}

export function expectHistory(history: Json, taskId: number, type: number): void {
  expect(keys(history)).toEqual(HISTORY_KEYS);
  expect(history).toMatchObject({ taskId, type, commitName: '', commitLink: '' });
  expect(history.updateDate).toMatch(ISO_MS);
  expect(typeof history.state).toBe('string');
}

/**
 * A new organization member added to a space with a role. A row, not the share API: these tests are
 * about tasks, and sharing is the spaces module's to test.
 */
export async function spaceMember(t: TestKit, owner: TestUser, spaceId: number, role: 'admin' | 'editor' | 'member' | 'reader'): Promise<TestUser> {
  const user = await t.member(owner, 'member');
  await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${owner.organizationId}, ${spaceId}, ${user.id}, ${role})`);
  return user;
}

/** A board (owner, space, project, columns) with a space reader and member, built through the API. */
export async function boardWithRoles(t: TestKit, columns = 2) {
  const f = factories(t);
  const board = await f.board(columns);
  const reader = await spaceMember(t, board.owner, Number(board.space.id), 'reader');
  const member = await spaceMember(t, board.owner, Number(board.space.id), 'member');
  const stageIds = board.stages.map((s) => Number(s.id));
  return { ...board, reader, member, f, stageIds };
}

/**
 * Task ids of a column in board order (stored ranks, then task id: tasks/board/ranks.ts), failing
 * unless the ranks are distinct (only concurrent placements may tie; see move.concurrency.test.ts).
 */
export async function columnTasks(t: TestKit, stageId: number, ties: 'allowed' | 'none' = 'none'): Promise<number[]> {
  const rows = await t.sql<{ id: number; order: number }>(
    sql`select task_id as id, "order" from task_stages where stage_id = ${stageId} and "order" is not null order by "order", task_id`,
  );
  const orders = rows.map((r) => Number(r.order));
  if (ties === 'none') expect(new Set(orders).size).toBe(orders.length);
  return rows.map((r) => Number(r.id));
}

export async function historyOf(t: TestKit, taskId: number): Promise<Array<{ type: number; userId: number }>> {
  return t.sql(sql`select type, user_id as "userId" from task_history where task_id = ${taskId} order by id`);
}

/** Creates `n` tasks in a column through the API; returns their ids in creation order. */
export async function tasksIn(t: TestKit, owner: TestUser, stageId: number, n: number): Promise<number[]> {
  const f = factories(t);
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push(Number((await f.task(owner, stageId, { name: `Task ${i}`, order: i })).id));
  return ids;
}
