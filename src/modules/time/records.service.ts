import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import { readableSpaceIds } from '../../platform/access.js';
import type { Ctx } from '../../platform/context.js';
import type { HistoryDto } from '../tasks/history/history.schemas.js';
import { authorizeProjectTasks, authorizeTask } from '../tasks/tasks.policy.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import { emitTimeEvent, finishTimeChange, hoursText, lockTaskForTime } from './spent-time.js';
import { authorizeRecord, authorizeTaskTime } from './time.policy.js';
import { presentRecord, RECORD_COLUMNS, type RecordRow } from './time.presenter.js';
import type { CreateRecordInput, RecordsQueryInput, TimeRecordDto, UpdateRecordInput } from './time.schemas.js';

export interface RecordWithTask {
  record: TimeRecordDto;
  task: TaskDto;
  history: HistoryDto;
}

/**
 * Time records of tasks the caller can read, newest day first. A task or project named in the
 * filter must itself be readable (404 otherwise), so a filter never tells apart "no records" and
 * "not yours to see".
 */
export async function listTimeRecords(ctx: Ctx, q: RecordsQueryInput): Promise<{ items: TimeRecordDto[]; total: number }> {
  const { db, actor } = ctx;
  if (q.taskId !== undefined) await authorizeTask(db, actor, q.taskId, 'read');
  if (q.projectId !== undefined) await authorizeProjectTasks(db, actor, q.projectId);

  const orgWide = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  const spaces = orgWide ? null : idArray((await readableSpaceIds(db, actor)));
  const where: SQL[] = [
    sql`r.organization_id = ${actor.organizationId}`,
    // Readable = held by a live project of a space the caller is in (any space for organization admins).
    sql`exists (select 1 from task_stages ts join projects p on p.id = ts.project_id and p.deleted_at is null
                where ts.task_id = r.task_id ${
                  spaces
                    ? sql`and (p.space_id = any(${spaces}) or exists (select 1 from project_spaces ps where ps.project_id = p.id and ps.space_id = any(${spaces})))`
                    : sql``
                })`,
  ];
  if (q.taskId !== undefined) where.push(sql`r.task_id = ${q.taskId}`);
  if (q.userId !== undefined) where.push(sql`r.user_id = ${q.userId}`);
  if (q.projectId !== undefined) where.push(sql`exists (select 1 from task_stages ts where ts.task_id = r.task_id and ts.project_id = ${q.projectId})`);
  if (q.dateFrom !== undefined) where.push(sql`r.date >= ${q.dateFrom}::date`);
  if (q.dateTo !== undefined) where.push(sql`r.date <= ${q.dateTo}::date`);

  const from = sql`from time_records r where ${sql.join(where, sql` and `)}`;
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const rows = await queryRows<RecordRow & { total: number }>(
    db,
    sql`select r.id, r.task_id as "taskId", r.user_id as "userId", r.date::text as date, r.hours, r.comment, r.source,
          r.created_at as "createdAt", r.updated_at as "updatedAt", count(*) over ()::int as total
        ${from} order by r.date desc, r.id desc limit ${limit} offset ${offset}`,
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  // Past the end no row carries the total; count apart so X-Total-Count stays true.
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(db, sql`select count(*)::int as n ${from}`))[0]?.n ?? 0);
  return { items: rows.map(presentRecord), total };
}

export async function createTimeRecord(ctx: Ctx, input: CreateRecordInput): Promise<RecordWithTask> {
  const { db, actor } = ctx;
  await authorizeTaskTime(db, actor, input.taskId, 'logTime');
  const task = await lockTaskForTime(ctx, input.taskId);
  const [row] = await queryRows<RecordRow>(
    db,
    sql`insert into time_records (organization_id, task_id, user_id, date, hours, comment, source)
        values (${actor.organizationId}, ${input.taskId}, ${actor.userId}, ${input.date}::date, ${input.hours}, ${input.comment ?? null}, 'manual')
        returning ${RECORD_COLUMNS}`,
  );
  const result = await finishTimeChange(ctx, input.taskId, task, `logged ${hoursText(input.hours)} on ${input.date}`);
  const record = presentRecord(row!);
  emitTimeEvent(ctx, 'time-record.created', input.taskId, task, record);
  return { record, ...result };
}

export async function updateTimeRecord(ctx: Ctx, recordId: number, input: UpdateRecordInput): Promise<RecordWithTask> {
  const { db, actor } = ctx;
  const access = await authorizeRecord(db, actor, recordId, 'updateRecord');
  const task = await lockTaskForTime(ctx, access.taskId);
  const set: SQL[] = [sql`updated_at = now()`];
  if (input.hours !== undefined) set.push(sql`hours = ${input.hours}`);
  if (input.date !== undefined) set.push(sql`date = ${input.date}::date`);
  if (input.comment !== undefined) set.push(sql`comment = ${input.comment}`);
  const [before] = await queryRows<{ hours: number; date: string }>(db, sql`select hours, date::text as date from time_records where id = ${recordId}`);
  const [row] = await queryRows<RecordRow>(db, sql`update time_records set ${sql.join(set, sql`, `)} where id = ${recordId} returning ${RECORD_COLUMNS}`);
  const after = presentRecord(row!);
  const state =
    Number(before!.hours) !== after.hours || before!.date !== after.date
      ? `changed a time record from ${hoursText(Number(before!.hours))} on ${before!.date} to ${hoursText(after.hours)} on ${after.date}`
      : `changed the comment of a time record of ${hoursText(after.hours)} on ${after.date}`;
  const result = await finishTimeChange(ctx, access.taskId, task, state);
  emitTimeEvent(ctx, 'time-record.updated', access.taskId, task, after);
  return { record: after, ...result };
}

export async function deleteTimeRecord(ctx: Ctx, recordId: number): Promise<{ task: TaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const access = await authorizeRecord(db, actor, recordId, 'deleteRecord');
  const task = await lockTaskForTime(ctx, access.taskId);
  const [gone] = await queryRows<{ hours: number; date: string }>(db, sql`delete from time_records where id = ${recordId} returning hours, date::text as date`);
  emitTimeEvent(ctx, 'time-record.deleted', access.taskId, task, { id: recordId });
  return finishTimeChange(ctx, access.taskId, task, `deleted a time record of ${hoursText(Number(gone!.hours))} on ${gone!.date}`);
}
