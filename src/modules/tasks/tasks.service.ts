import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { orderToInt } from '../../platform/schemas.js';
import { lockColumns, lockTasks, placeInColumn, requireRoom } from './board/columns.js';
import { appendedRankSql, denseOrderOf, insertedRankSql } from './board/ranks.js';
import { HISTORY, historyInsertFor, historyRecorded, recordForTasks, recordHistory, type HistoryRow } from './history/history.service.js';
import type { HistoryDto } from './history/history.schemas.js';
import { authorizeColumn, authorizeTask, requireAssignable, requireTaskRead, taskRankSql, type TaskAccess } from './tasks.policy.js';
import { loadTaskRecords, presentColorTask, presentTask } from './tasks.presenter.js';
import { CREATED_COLUMNS, CREATED_RETURNING, createdTaskRecord, type CreatedTaskRow } from './task-records.js';
import { emitTaskDeleted, shareTaskRecords } from './tasks.events.js';
import type { ColorTaskDto, CreateTaskInput, TaskDto } from './tasks.schemas.js';

export interface TaskWithHistory {
  task: TaskDto;
  history: HistoryDto;
}

async function loadTask(ctx: Ctx, taskId: number): Promise<TaskDto> {
  const [record] = await loadTaskRecords(ctx.db, ctx.actor.organizationId, [taskId]);
  if (!record) throw notFound('task');
  return presentTask(record);
}

function requireOrder(begin: string | null | undefined, end: string | null | undefined, what: string): void {
  if (begin && end && new Date(begin).getTime() > new Date(end).getTime()) {
    throw new AppError('DATE_RANGE', `${what}: the beginning is after the end`);
  }
}

// "" and null both reset the colour; stored as null.
const normalizeColor = (color: string | null | undefined): string | null => (color ? color : null);

export async function createTask(ctx: Ctx, input: CreateTaskInput): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const column = await authorizeColumn(db, actor, input.stageId, 'create');
  requireOrder(input.dateBegin, input.dateEnd, 'dateBegin/dateEnd');
  requireOrder(input.dateBeginWithoutTime, input.dateEndWithoutTime, 'dateBeginWithoutTime/dateEndWithoutTime');
  const raw = input.responsibleUserId;
  const assignees = [...new Set(raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw])];
  await requireAssignable(db, actor, column.projectId, assignees, 'responsibleUserId');

  const name = input.name.trim();
  const position = orderToInt(input.order);
  // The task, its placement, assignees and history record in one statement. In a column without a
  // WIP limit (the commonest create) the placement takes its rank right here, appended or at the
  // position asked, and its dense position is counted among the others as the statement saw them.
  const rank = column.tasksLimit > 0 ? sql`null::int` : position === undefined ? appendedRankSql(column.id) : insertedRankSql(column.id, position);
  const [row] = await queryRows<HistoryRow & CreatedTaskRow & { rank: number | null; position: number | string }>(
    db,
    sql`with t as (
          insert into tasks (organization_id, space_id, project_id, name, description, creator_id, color, date_begin, date_end,
            date_begin_without_time, date_end_without_time, importance)
          values (${actor.organizationId}, ${column.spaceId}, ${column.projectId}, ${name}, ${input.description ?? null}, ${actor.userId},
            ${normalizeColor(input.color)}, ${input.dateBegin ?? null}, ${input.dateEnd ?? null}, ${input.dateBeginWithoutTime ?? null},
            ${input.dateEndWithoutTime ?? null}, ${input.importance ?? -1})
          returning ${CREATED_RETURNING}),
        s as (
          insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
          select ${actor.organizationId}, t.id, ${column.projectId}, ${column.id}, ${rank}, true from t
          returning stage_id, "order", task_id),
        a as (insert into task_assignees (organization_id, task_id, user_id) select ${actor.organizationId}, t.id, u from t, unnest(${idArray(assignees)}) as u),
        h as (${historyInsertFor(actor, 't', { type: HISTORY.created, state: `created the task in "${column.name}"`, projectName: column.projectName, taskName: name })})
        select h.*, (select "order" from s) as rank, ${CREATED_COLUMNS},
          (select ${denseOrderOf('s')} from s) as position from h, t`,
    { prepare: 'task-create' },
  );
  const taskId = Number(row!.taskId);
  const [history] = historyRecorded(db, actor, [row!]);
  if (row!.rank === null) {
    // A WIP-limited column's lock (which serializes its writers until COMMIT) is taken only now, for
    // the limit: a refused limit rolls the rows above back. The position needs no lock (ranks.ts).
    if (column.tasksLimit > 0) await requireRoom(db, (await lockColumns(db, actor.organizationId, [column.id])).get(column.id)!, 1);
    await placeInColumn(db, column.id, [taskId], position);
  }
  // Ranked by the statement, the new task's form is what it wrote: no second read.
  const record =
    row!.rank === null
      ? (await loadTaskRecords(db, actor.organizationId, [taskId]))[0]!
      : createdTaskRecord(taskId, row!, { stageId: column.id, projectId: column.projectId, order: Number(row!.position) }, assignees);
  shareTaskRecords(db, [record]);
  return { task: presentTask(record), history: history! };
}

/** The hottest read: authorized and loaded by one statement. */
export async function getTask(ctx: Ctx, taskId: number): Promise<TaskDto> {
  const [record] = await loadTaskRecords(ctx.db, ctx.actor.organizationId, [taskId], { rank: taskRankSql(ctx.actor) });
  requireTaskRead(record?.rank);
  return presentTask(record!);
}

/** An archived task is read-only until restored: its board position is gone. */
function requireActive(task: TaskAccess): void {
  if (task.archived) throw new AppError('CONFLICT', 'the task is archived; restore it first');
}

/** The name of the task's home project, for history records. */
async function homeProjectName(ctx: Ctx, taskId: number): Promise<string> {
  const [row] = await queryRows<{ name: string }>(
    ctx.db,
    sql`select p.name from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = ${taskId} order by ts.pinned desc limit 1`,
    { prepare: 'home-project-name' },
  );
  return row?.name ?? '';
}

export async function setTaskColor(ctx: Ctx, taskId: number, color: string | null): Promise<{ task: ColorTaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'update');
  requireActive(task);
  const value = normalizeColor(color);
  await queryRows(db, sql`update tasks set color = ${value}, updated_at = now() where id = ${taskId}`, { prepare: 'task-color' });
  const [history] = await recordHistory(db, actor, [
    { taskId, type: HISTORY.color, state: value ? `set the colour ${value}` : 'reset the colour', projectName: await homeProjectName(ctx, taskId), taskName: task.name },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [taskId]);
  return { task: presentColorTask(record!), history: history! };
}

export async function setTaskPlanTime(ctx: Ctx, taskId: number, planTime: number): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'update');
  requireActive(task);
  await db.execute(sql`update tasks set plan_time = ${planTime}, updated_at = now() where id = ${taskId}`);
  const [history] = await recordHistory(db, actor, [
    { taskId, type: HISTORY.planTime, state: `set the planned time to ${planTime} h`, projectName: await homeProjectName(ctx, taskId), taskName: task.name },
  ]);
  return { task: await loadTask(ctx, taskId), history: history! };
}

export async function addTaskInspector(ctx: Ctx, taskId: number, inspectorId: number): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'update');
  requireActive(task);
  const [home] = await queryRows<{ projectId: number; name: string }>(
    db,
    sql`select p.id as "projectId", p.name from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = ${taskId} order by ts.pinned desc limit 1`,
  );
  await requireAssignable(db, actor, Number(home!.projectId), [inspectorId], 'inspectorId');
  const added = await queryRows<{ id: number }>(
    db,
    sql`insert into task_inspectors (organization_id, task_id, user_id) values (${actor.organizationId}, ${taskId}, ${inspectorId})
        on conflict (task_id, user_id) do nothing returning id`,
  );
  if (added.length === 0) throw new AppError('CONFLICT', `user ${inspectorId} already inspects this task`);
  await db.execute(sql`update tasks set updated_at = now() where id = ${taskId}`);
  const [history] = await recordHistory(db, actor, [
    { taskId, type: HISTORY.inspectors, state: `added inspector ${inspectorId}`, projectName: home!.name, taskName: task.name },
  ]);
  return { task: await loadTask(ctx, taskId), history: history! };
}

/**
 * Deletes a task for good (its history, subtasks and records go with it); its columns close ranks.
 * Tasks linked to it through subtasks change too (a parent's subtask no longer links it, a child
 * loses this parent), and record it, so their task.updated goes out as well.
 */
export async function deleteTask(ctx: Ctx, taskId: number): Promise<void> {
  const { db, actor } = ctx;
  const task = await authorizeTask(db, actor, taskId, 'delete');
  await lockTasks(db, actor.organizationId, [taskId]);
  const links = await queryRows<{ parentId: number | null; childId: number | null }>(
    db,
    sql`select task_id as "parentId", null::bigint as "childId" from subtasks where child_task_id = ${taskId} and task_id <> ${taskId}
        union select null, child_task_id from subtasks where task_id = ${taskId} and child_task_id is not null and child_task_id <> ${taskId}`,
  );
  const [gone] = await queryRows<{ spaceId: number; projectId: number }>(
    db,
    sql`delete from tasks where id = ${taskId} and organization_id = ${actor.organizationId}
        returning space_id as "spaceId", project_id as "projectId"`,
  );
  emitTaskDeleted(db, { id: taskId, spaceId: Number(gone!.spaceId), projectId: Number(gone!.projectId) });
  const linked = (key: 'parentId' | 'childId') => links.flatMap((l) => (l[key] === null ? [] : [Number(l[key])]));
  await recordForTasks(db, actor, linked('parentId'), HISTORY.subtasks, `linked task "${task.name}" was deleted`);
  await recordForTasks(db, actor, linked('childId'), HISTORY.subtasks, `parent task "${task.name}" was deleted`);
}
