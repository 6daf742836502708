import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { HistoryDto } from '../tasks/history/history.schemas.js';
import { authorizeProjectTasks } from '../tasks/tasks.policy.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import { emitTimeEvent, hoursText, loadTaskForm, lockTaskForTime, recordSpentTime, type LockedTimeTask } from './spent-time.js';
import { authorizeTaskTime, authorizeTimerList, authorizeTimerStop } from './time.policy.js';
import { presentRecord, presentTimer, RECORD_COLUMNS, TIMER_COLUMNS, type RecordRow, type TimerRow } from './time.presenter.js';
import type { ProjectTimersQueryInput, TimeRecordDto, TimerDto, TimersQueryInput } from './time.schemas.js';

const MAX_MINUTES = 24 * 60;

async function pageOfTimers(ctx: Ctx, where: SQL[], q: { limit?: number; offset?: number }): Promise<{ items: TimerDto[]; total: number }> {
  const from = sql`from timers where ${sql.join(where, sql` and `)}`;
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const rows = await queryRows<TimerRow & { total: number }>(
    ctx.db,
    sql`select ${TIMER_COLUMNS}, count(*) over ()::int as total ${from} order by started_at desc, id desc limit ${limit} offset ${offset}`,
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(ctx.db, sql`select count(*)::int as n ${from}`))[0]?.n ?? 0);
  return { items: rows.map(presentTimer), total };
}

const runningFilter = (running: boolean | undefined): SQL[] =>
  running === undefined ? [] : [running ? sql`stopped_at is null` : sql`stopped_at is not null`];

/** The organization's timers: the caller's own, or anyone's (or one user's) for organization admins. */
export function listTimers(ctx: Ctx, q: TimersQueryInput): Promise<{ items: TimerDto[]; total: number }> {
  const { userId } = authorizeTimerList(ctx.actor, q.userId);
  const where = [sql`organization_id = ${ctx.actor.organizationId}`, ...runningFilter(q.running)];
  if (userId !== null) where.push(sql`user_id = ${userId}`);
  return pageOfTimers(ctx, where, q);
}

/** Timers started on tasks of a project (the task's home project when the timer started). */
export async function listProjectTimers(ctx: Ctx, projectId: number, q: ProjectTimersQueryInput): Promise<{ items: TimerDto[]; total: number }> {
  await authorizeProjectTasks(ctx.db, ctx.actor, projectId);
  return pageOfTimers(ctx, [sql`organization_id = ${ctx.actor.organizationId}`, sql`project_id = ${projectId}`, ...runningFilter(q.running)], q);
}

interface Stopped {
  timer: TimerDto;
  record: TimeRecordDto;
  history: HistoryDto;
}

/**
 * Stops a running timer whose task the caller has locked, writing its time record (source `timer`:
 * the elapsed time rounded to minutes, at least one, at most 24 h, on the day it started, UTC) and
 * the history row. Null when the timer was stopped meanwhile. The record and history belong to the
 * timer's organization, which is not the caller's active one when a start elsewhere stops it.
 */
async function stopRunning(ctx: Ctx, timer: { id: number; organizationId: number; taskId: number }, task: LockedTimeTask, comment: string | null): Promise<Stopped | null> {
  const { db } = ctx;
  const [stopped] = await queryRows<TimerRow & { day: string }>(
    db,
    sql`update timers set stopped_at = greatest(now(), started_at), seconds = greatest(0, floor(extract(epoch from now() - started_at)))::int
        where id = ${timer.id} and stopped_at is null
        returning ${TIMER_COLUMNS}, (started_at at time zone 'UTC')::date::text as day`,
  );
  if (!stopped) return null;
  const minutes = Math.min(MAX_MINUTES, Math.max(1, Math.round(Number(stopped.seconds) / 60)));
  const hours = minutes / 60;
  const [record] = await queryRows<RecordRow>(
    db,
    sql`insert into time_records (organization_id, task_id, user_id, date, hours, comment, source)
        values (${timer.organizationId}, ${timer.taskId}, ${Number(stopped.userId)}, ${stopped.day}::date, ${hours}, ${comment}, 'timer')
        returning ${RECORD_COLUMNS}`,
  );
  await db.execute(sql`update timers set record_id = ${record!.id} where id = ${timer.id}`);
  const history = await recordSpentTime(db, { ...ctx.actor, organizationId: timer.organizationId }, timer.taskId, task, `logged ${hoursText(hours)} with a timer`);
  const result = { timer: presentTimer(stopped), record: presentRecord(record!), history };
  // Announced in the timer's organization, which a start elsewhere may have stopped it from.
  emitTimeEvent(ctx, 'timer.stopped', timer.taskId, task, result.timer, timer.organizationId);
  emitTimeEvent(ctx, 'time-record.created', timer.taskId, task, result.record, timer.organizationId);
  return result;
}

/**
 * Starts a timer on a task. A user runs one timer at a time: a running one is stopped first (its
 * record written), unless it already times this task, which is then answered as it is, so a
 * retried start does not split the time. The partial unique index on running timers turns a
 * concurrent second start into 409.
 */
export async function startTimer(ctx: Ctx, taskId: number): Promise<TimerDto> {
  const { db, actor } = ctx;
  await authorizeTaskTime(db, actor, taskId, 'startTimer');
  const [running] = await queryRows<TimerRow & { organizationId: number }>(
    db,
    sql`select ${TIMER_COLUMNS}, organization_id as "organizationId" from timers where user_id = ${actor.userId} and stopped_at is null`,
  );
  if (running && Number(running.taskId) === taskId && Number(running.organizationId) === actor.organizationId) return presentTimer(running);
  if (running) {
    const previous = { id: Number(running.id), organizationId: Number(running.organizationId), taskId: Number(running.taskId) };
    // The previous task is locked before this one only when its id is lower, keeping tasks locked in id order.
    const ordered = [previous.taskId, taskId].sort((a, b) => a - b);
    const locked = new Map<number, LockedTimeTask>();
    for (const id of ordered) locked.set(id, await lockTaskForTime(ctx, id, id === taskId ? actor.organizationId : previous.organizationId));
    await stopRunning(ctx, previous, locked.get(previous.taskId)!, null);
  }
  const task = await lockTaskForTime(ctx, taskId);
  const [row] = await queryRows<TimerRow>(
    db,
    sql`insert into timers (organization_id, user_id, task_id, project_id) values (${actor.organizationId}, ${actor.userId}, ${taskId}, ${task.projectId})
        returning ${TIMER_COLUMNS}`,
  );
  const timer = presentTimer(row!);
  emitTimeEvent(ctx, 'timer.started', taskId, task, timer);
  return timer;
}

/** Stops the caller's running timer: {timer, record, task: Task(full), history}. */
export async function stopTimer(ctx: Ctx, timerId: number, comment: string | null): Promise<Stopped & { task: TaskDto }> {
  const { actor } = ctx;
  const timer = await authorizeTimerStop(ctx.db, actor, timerId);
  const task = await lockTaskForTime(ctx, timer.taskId);
  const stopped = await stopRunning(ctx, { id: timer.id, organizationId: actor.organizationId, taskId: timer.taskId }, task, comment);
  if (!stopped) throw new AppError('CONFLICT', 'the timer is already stopped');
  return { ...stopped, task: await loadTaskForm(ctx, timer.taskId) };
}
