import { sql } from 'drizzle-orm';
import { iso, isoDate } from '../../platform/http.js';
import type { TimeRecordDto, TimerDto } from './time.schemas.js';

type Stamp = Date | string;

export interface RecordRow {
  id: number;
  taskId: number;
  userId: number | null;
  date: string;
  hours: number;
  comment: string | null;
  source: 'manual' | 'timer';
  createdAt: Stamp;
  updatedAt: Stamp;
}

/** The columns of a RecordRow, for `select` and `returning` (table alias optional). */
export const RECORD_COLUMNS = sql.raw(
  `id, task_id as "taskId", user_id as "userId", date::text as date, hours, comment, source, created_at as "createdAt", updated_at as "updatedAt"`,
);

export const presentRecord = (r: RecordRow): TimeRecordDto => ({
  id: Number(r.id),
  taskId: Number(r.taskId),
  userId: r.userId === null ? null : Number(r.userId),
  date: isoDate(r.date)!,
  hours: Number(r.hours),
  comment: r.comment,
  source: r.source,
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
});

export interface TimerRow {
  id: number;
  userId: number;
  taskId: number;
  projectId: number;
  startedAt: Stamp;
  stoppedAt: Stamp | null;
  seconds: number;
}

/** A running timer's seconds count up to the statement's time; a stopped one keeps its final count. */
export const TIMER_COLUMNS = sql.raw(
  `id, user_id as "userId", task_id as "taskId", project_id as "projectId", started_at as "startedAt", stopped_at as "stoppedAt",
   coalesce(seconds, greatest(0, floor(extract(epoch from now() - started_at)))::int) as seconds`,
);

export const presentTimer = (r: TimerRow): TimerDto => ({
  id: Number(r.id),
  userId: Number(r.userId),
  taskId: Number(r.taskId),
  projectId: Number(r.projectId),
  startedAt: iso(r.startedAt)!,
  stoppedAt: iso(r.stoppedAt),
  seconds: Number(r.seconds),
});
