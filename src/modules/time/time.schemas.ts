import { Type, type Static } from 'typebox';
import { Paging } from '../../platform/http.js';
import { DateOnly, DateTime, Id, Nullable } from '../../platform/schemas.js';
import { HistorySchema } from '../tasks/history/history.schemas.js';
import { TaskSchema, TaskWithHistorySchema } from '../tasks/tasks.schemas.js';

// routes.md "Time tracking" and "Timers". Time amounts are decimal hours.

export const TimeRecordSchema = Type.Object(
  {
    id: Type.Integer(),
    taskId: Type.Integer(),
    userId: Nullable(Type.Integer({ description: 'who spent the time; null once that user is deleted' })),
    date: DateOnly('the day the time was spent'),
    hours: Type.Number({ description: 'hours spent, > 0 and ≤ 24' }),
    comment: Nullable(Type.String()),
    source: Type.Union([Type.Literal('manual'), Type.Literal('timer')]),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'TimeRecord' },
);
export type TimeRecordDto = Static<typeof TimeRecordSchema>;

export const TimerSchema = Type.Object(
  {
    id: Type.Integer(),
    userId: Type.Integer(),
    taskId: Type.Integer(),
    projectId: Type.Integer({ description: "the task's home project when the timer started" }),
    startedAt: DateTime(),
    stoppedAt: Nullable(DateTime()),
    seconds: Type.Integer({ description: 'elapsed seconds: up to now while running, the final count once stopped' }),
  },
  { $id: 'Timer' },
);
export type TimerDto = Static<typeof TimerSchema>;

const Hours = Type.Number({ exclusiveMinimum: 0, maximum: 24, description: 'hours, > 0 and ≤ 24' });
const Comment = Nullable(Type.String({ maxLength: 10_000, description: 'what the time was spent on' }));

export const RecordParams = Type.Object({ recordId: Id('time record id') });
export const TimerParams = Type.Object({ timerId: Id('timer id') });
export const ProjectParams = Type.Object({ projectId: Id('project id') });

const paging = Paging().properties;

export const RecordsQuery = Type.Object({
  taskId: Type.Optional(Id('only records of this task')),
  userId: Type.Optional(Id('only records of this user')),
  projectId: Type.Optional(Id('only records of tasks in this project')),
  dateFrom: Type.Optional(DateOnly('records on or after this day')),
  dateTo: Type.Optional(DateOnly('records on or before this day')),
  ...paging,
});
export type RecordsQueryInput = Static<typeof RecordsQuery>;

export const CreateRecordBody = Type.Object({
  taskId: Id('the task the time was spent on'),
  hours: Hours,
  date: DateOnly('the day the time was spent'),
  comment: Type.Optional(Comment),
});
export type CreateRecordInput = Static<typeof CreateRecordBody>;

export const UpdateRecordBody = Type.Object(
  { hours: Type.Optional(Hours), date: Type.Optional(DateOnly()), comment: Type.Optional(Comment) },
  { minProperties: 1 },
);
export type UpdateRecordInput = Static<typeof UpdateRecordBody>;

export const RecordResult = Type.Object({ record: TimeRecordSchema, task: TaskSchema, history: HistorySchema });
export const TaskWithHistoryResult = TaskWithHistorySchema;

const Running = Type.Boolean({ description: 'true: running timers only; false: stopped ones only; absent: both' });

export const TimersQuery = Type.Object({
  userId: Type.Optional(Id('whose timers (organization admins only for other users; default: all for admins, your own otherwise)')),
  running: Type.Optional(Running),
  ...paging,
});
export type TimersQueryInput = Static<typeof TimersQuery>;

export const ProjectTimersQuery = Type.Object({ running: Type.Optional(Running), ...paging });
export type ProjectTimersQueryInput = Static<typeof ProjectTimersQuery>;

export const StartTimerBody = Type.Object({ taskId: Id('the task to time') });
export const StopTimerBody = Type.Object({ comment: Type.Optional(Comment) });

export const StopResult = Type.Object({ timer: TimerSchema, record: TimeRecordSchema, task: TaskSchema, history: HistorySchema });
