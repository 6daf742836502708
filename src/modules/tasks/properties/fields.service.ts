import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { iso, isoDate } from '../../../platform/http.js';
import { HISTORY } from '../history/history.service.js';
import { authorizeProperty } from './properties.policy.js';
import { DESCRIPTION_MAX_BYTES, type DatesInput, type DescriptionDto, type StatusInput } from './properties.schemas.js';
import { beginTaskChange, finishTaskChange, type TaskWithHistory } from './task-change.js';
import { syncSubtasksOfChildren } from '../subtasks/child-task.service.js';

const STATUS_NAMES = ['in work', 'done', 'rejected', 'needs attention'];
const IMPORTANCE_NAMES: Record<number, string> = { [-1]: 'not set', 0: 'low', 1: 'medium', 2: 'high', 3: 'critical' };
const NEEDS_ATTENTION = 3;
const DONE = 1;

export async function renameTask(ctx: Ctx, taskId: number, name: string): Promise<TaskWithHistory> {
  const task = await beginTaskChange(ctx, taskId, 'rename');
  const next = name.trim();
  const before = task.name;
  const changed = next !== before;
  if (changed) await ctx.db.execute(sql`update tasks set name = ${next} where id = ${taskId}`);
  task.name = next;
  return finishTaskChange(ctx, task, { type: HISTORY.renamed, state: changed ? `renamed "${before}" to "${next}"` : `kept the name "${next}"`, changed });
}

export async function getTaskDescription(ctx: Ctx, taskId: number): Promise<DescriptionDto> {
  const { db, actor } = ctx;
  await authorizeProperty(db, actor, taskId, 'readDescription');
  // The description has no timestamp of its own: its last history record is when it changed.
  const [row] = await queryRows<{ description: string | null; updatedAt: Date | string }>(
    db,
    sql`select t.description, coalesce(
          (select max(h.update_date) from task_history h where h.task_id = t.id and h.type = ${HISTORY.description}), t.created_at) as "updatedAt"
        from tasks t where t.id = ${taskId} and t.organization_id = ${actor.organizationId}`,
  );
  if (!row) throw notFound('task');
  return { taskId, description: row.description, updatedAt: iso(row.updatedAt)! };
}

export async function setTaskDescription(ctx: Ctx, taskId: number, description: string | null): Promise<TaskWithHistory> {
  // Checked in bytes before any row is touched; the schema's maxLength counts characters.
  const bytes = description === null ? 0 : Buffer.byteLength(description, 'utf8');
  if (bytes > DESCRIPTION_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `the description is larger than ${DESCRIPTION_MAX_BYTES} bytes`);
  const task = await beginTaskChange(ctx, taskId, 'describe');
  // Stored as given (no trimming or rewriting); "" and null both mean "no description".
  const value = description === '' ? null : description;
  await ctx.db.execute(sql`update tasks set description = ${value} where id = ${taskId}`);
  return finishTaskChange(ctx, task, {
    type: HISTORY.description,
    state: value === null ? 'cleared the description' : `changed the description (${bytes} bytes)`,
    changed: true,
  });
}

export async function setTaskImportance(ctx: Ctx, taskId: number, importance: number): Promise<TaskWithHistory> {
  const task = await beginTaskChange(ctx, taskId, 'setImportance');
  const changed = task.importance !== importance;
  if (changed) await ctx.db.execute(sql`update tasks set importance = ${importance} where id = ${taskId}`);
  const name = IMPORTANCE_NAMES[importance]!;
  return finishTaskChange(ctx, task, {
    type: HISTORY.importance,
    state: changed ? `changed the importance from ${IMPORTANCE_NAMES[task.importance]} to ${name}` : `kept the importance ${name}`,
    changed,
  });
}

/**
 * Sets the status. Only "needs attention" carries a block reason: it is kept when omitted, and every
 * other status clears it. dateStatusChanged moves whenever the status does. A linked child task
 * (a subtask shown on the board) and its subtask stay in step: finishing one checks the other.
 */
export async function setTaskStatus(ctx: Ctx, taskId: number, input: StatusInput): Promise<TaskWithHistory> {
  if (input.status !== NEEDS_ATTENTION && input.blockReason != null) {
    throw new AppError('VALIDATION_FAILED', 'blockReason is only for status 3 (needs attention)', [
      { path: '/blockReason', message: 'must be omitted or null unless status is 3' },
    ]);
  }
  const parents = await queryRows<{ id: number }>(
    ctx.db,
    sql`select task_id as id from subtasks where child_task_id = ${taskId} and organization_id = ${ctx.actor.organizationId}`,
  );
  const task = await beginTaskChange(ctx, taskId, 'setStatus', parents.map((p) => Number(p.id)));
  const blockReason = input.status === NEEDS_ATTENTION ? (input.blockReason === undefined ? task.blockReason : input.blockReason) : null;
  const statusChanged = task.status !== input.status;
  const changed = statusChanged || blockReason !== task.blockReason;
  if (changed) {
    await ctx.db.execute(
      sql`update tasks set status = ${input.status}, block_reason = ${blockReason}
            ${statusChanged ? sql`, date_status_changed = now()` : sql``}
          where id = ${taskId}`,
    );
  }
  if (statusChanged && (input.status === DONE || task.status === DONE)) await syncSubtasksOfChildren(ctx, [taskId], input.status === DONE);
  const name = STATUS_NAMES[input.status]!;
  const reason = input.status === NEEDS_ATTENTION && blockReason ? `: ${blockReason}` : '';
  return finishTaskChange(ctx, task, {
    type: HISTORY.status,
    state: statusChanged ? `changed the status from ${STATUS_NAMES[task.status]} to ${name}${reason}` : `kept the status ${name}${reason}`,
    changed,
  });
}

const DAY_MS = 86_400_000;
const startOfDay = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/**
 * Changes the dates. Omitted fields keep their value and null clears one. The rule begin ≤ end is
 * checked on the values the task will hold, across both forms: a day without time spans the whole
 * UTC day, so a begin at 10:00 and an end "same day" is fine, an end the day before is not.
 */
export async function setTaskDates(ctx: Ctx, taskId: number, input: DatesInput): Promise<TaskWithHistory> {
  const task = await beginTaskChange(ctx, taskId, 'setDates');
  const next = {
    dateBegin: input.dateBegin === undefined ? iso(task.dateBegin) : input.dateBegin,
    dateEnd: input.dateEnd === undefined ? iso(task.dateEnd) : input.dateEnd,
    dateBeginWithoutTime: input.dateBeginWithoutTime === undefined ? isoDate(task.dateBeginWithoutTime) : input.dateBeginWithoutTime,
    dateEndWithoutTime: input.dateEndWithoutTime === undefined ? isoDate(task.dateEndWithoutTime) : input.dateEndWithoutTime,
  };
  const begins = [next.dateBegin && Date.parse(next.dateBegin), next.dateBeginWithoutTime && startOfDay(next.dateBeginWithoutTime)];
  const ends = [next.dateEnd && Date.parse(next.dateEnd), next.dateEndWithoutTime && startOfDay(next.dateEndWithoutTime) + DAY_MS - 1];
  for (const begin of begins) {
    for (const end of ends) {
      if (typeof begin === 'number' && typeof end === 'number' && begin > end) {
        throw new AppError('DATE_RANGE', 'the task would begin after it ends');
      }
    }
  }
  await ctx.db.execute(
    sql`update tasks set date_begin = ${next.dateBegin}, date_end = ${next.dateEnd},
          date_begin_without_time = ${next.dateBeginWithoutTime}, date_end_without_time = ${next.dateEndWithoutTime}
        where id = ${taskId}`,
  );
  const shown = (v: string | null) => v ?? 'none';
  return finishTaskChange(ctx, task, {
    type: HISTORY.dates,
    state: `set the dates: begin ${shown(next.dateBegin ?? next.dateBeginWithoutTime)}, end ${shown(next.dateEnd ?? next.dateEndWithoutTime)}`,
    changed: true,
  });
}
