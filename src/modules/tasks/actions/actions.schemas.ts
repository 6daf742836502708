import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id, Name } from '../../../platform/schemas.js';
import { HistorySchema } from '../history/history.schemas.js';
import { ArchivedTaskSchema, TaskSchema } from '../tasks.schemas.js';
import { Offset } from '../../../platform/http.js';

// Request and response forms of the kanban task actions (routes.md rows 2, 5–17, 19).

export const TaskList = Type.Array(TaskSchema);
export const TasksWithHistory = Type.Object({ tasks: Type.Array(TaskSchema), history: Type.Array(HistorySchema) });

/** Task lists: one request loads a board, so they default to 1000 and allow up to 10000 (routes.md). */
export const taskPaging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000, description: 'page size (default 1000, max 10000)' })),
  offset: Offset(),
};
export const TASK_PAGE = 1000;

export const Statuses = Type.String({ pattern: '^[0-3](,[0-3])*$', description: 'comma-separated statuses, e.g. 0,3' });
export const Bound = (description: string) => Type.Union([DateOnly(), DateTime()], { description });
export const Tz = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_+\\-/]+$',
  description: 'IANA time zone that decides what "today" is (default UTC)',
});

const due = {
  dateFrom: Type.Optional(Bound('only tasks due (dateEnd) at or after this date or instant')),
  dateTo: Type.Optional(Bound('only tasks due (dateEnd) at or before this date (the whole day, UTC) or instant')),
};

export const OrganizationTasksQuery = Type.Object({
  statuses: Type.Optional(Statuses),
  responsibleId: Type.Optional(Id('only tasks assigned to this user')),
  spaceId: Type.Optional(Id('only tasks of projects at home in or linked into this space')),
  projectId: Type.Optional(Id('only tasks on this project board')),
  ...due,
  ...taskPaging,
});
export const AssigneeTasksQuery = Type.Object({ statuses: Type.Optional(Statuses), ...due, ...taskPaging });
export const MyTasksQuery = Type.Object({ statuses: Type.Optional(Statuses), ...taskPaging });
export const TodayQuery = Type.Object({ tz: Type.Optional(Tz), ...taskPaging });
export const CountsQuery = Type.Object({ tz: Type.Optional(Tz) });
export const HistoryQuery = Type.Object({
  dateFrom: Type.Optional(Bound('records at or after this date or instant')),
  dateTo: Type.Optional(Bound('records at or before this date (the whole day, UTC) or instant')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});

export type TaskFilterQuery = Partial<Static<typeof OrganizationTasksQuery>>;
export type HistoryQueryDto = Static<typeof HistoryQuery>;

export const UserParams = Type.Object({ userId: Id('user id') });
export const ProjectParams = Type.Object({ projectId: Id('project id') });
export const ColumnParams = Type.Object({ projectId: Id('project id'), stageId: Id('column id') });

export const CountsSchema = Type.Object(
  {
    assigned: Type.Integer({ description: 'open tasks (status 0 or 3) assigned to the caller' }),
    overdue: Type.Integer({ description: 'of those, due before now (dateEnd, or dateEndWithoutTime before today)' }),
    dueToday: Type.Integer({ description: 'of those, due today in tz' }),
    needsAttention: Type.Integer({ description: 'tasks the caller takes part in (assignee, member, inspector) in status 3' }),
    inspecting: Type.Integer({ description: 'open tasks waiting for the caller as inspector (inspector status 0)' }),
    created: Type.Integer({ description: 'open tasks the caller created' }),
    participating: Type.Integer({ description: 'open tasks the caller takes part in (assignee, member or inspector)' }),
    finishedToday: Type.Integer({ description: 'tasks assigned to the caller done (status 1) today in tz' }),
  },
  { $id: 'TaskCounts' },
);
export type CountsDto = Static<typeof CountsSchema>;

export const DuplicateTaskBody = Type.Object({
  stageId: Type.Optional(Id('the column of the copy (default: the home column of the original)')),
  withSubtasks: Type.Optional(Type.Boolean({ default: true, description: 'copy the subtasks (default true)' })),
  withMessages: Type.Optional(Type.Boolean({ default: false, description: 'copy the chat messages (default false)' })),
});
export type DuplicateTaskInput = Static<typeof DuplicateTaskBody>;

export const DuplicateProjectBody = Type.Object({
  name: Type.Optional(Name('name of the copy (default: the original name with " (copy)")')),
  spaceId: Type.Optional(Id('the space of the copy (default: the home space of the original)')),
  withTasks: Type.Optional(Type.Boolean({ default: false, description: 'copy the tasks on the board too (default false)' })),
});
export type DuplicateProjectInput = Static<typeof DuplicateProjectBody>;

export const ByIdsBody = Type.Object({
  ids: Type.Array(Id('task id'), { minItems: 1, maxItems: 500, description: 'task ids (≤500); answered in this order' }),
});

export const NeedsAttentionBody = Type.Object({
  blockReason: Type.Union([Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' }), Type.Null()], {
    description: 'why the task needs attention (status 3); null clears it (status 0)',
  }),
});

export const ArchiveManyBody = Type.Object({
  items: Type.Array(
    Type.Object({ taskId: Id('task id'), stageId: Id('the column it is archived from (one it sits in)') }),
    { minItems: 1, maxItems: 500, description: 'tasks to archive (≤500), all or nothing' },
  ),
});
export const ArchiveManyResult = Type.Object({ tasks: Type.Array(ArchivedTaskSchema), history: Type.Array(HistorySchema) });
