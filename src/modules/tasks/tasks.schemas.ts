import { Type, type Static } from 'typebox';
import { Color, DateOnly, DateTime, Id, Name, Nullable, OrderIn } from '../../platform/schemas.js';
import { HistorySchema } from './history/history.schemas.js';

// The spec's task forms (service-interface.md), matched field for field; unset values are null.

export const TaskStageSchema = Type.Object(
  {
    stageId: Type.Integer(),
    order: Nullable(Type.String({ pattern: '^[0-9]+$', description: 'position in the column, a numeric string; null while the task is archived' })),
    pinned: Type.Boolean({ description: 'the home column of the task' }),
    projectId: Type.Integer(),
  },
  { $id: 'TaskStage' },
);

export const SubtaskSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    isChecked: Type.Boolean(),
    taskId: Type.Integer(),
    childTaskId: Nullable(Type.Integer({ description: 'the linked child task, when the subtask is shown on the board' })),
    order: Type.String({ pattern: '^[0-9]+$' }),
  },
  { $id: 'Subtask' },
);

export const CoverSchema = Type.Object(
  {
    id: Type.Integer(),
    height: Type.Integer(),
    width: Type.Integer(),
    pictureUid: Type.String({ format: 'uuid' }),
    dominantColor: Type.String(),
    taskId: Type.Integer(),
  },
  { $id: 'TaskCover' },
);

export const InspectorSchema = Type.Object(
  {
    userId: Type.Integer(),
    status: Type.Integer({ description: '0 waiting, 1 approved, 2 rejected' }),
    comment: Nullable(Type.String()),
    updatedAt: DateTime(),
  },
  { $id: 'TaskInspector' },
);

const dates = {
  dateBegin: Nullable(DateTime()),
  dateEnd: Nullable(DateTime()),
};

/** Task(full): create, get, set plan time, add inspector and every task list. */
export const TaskSchema = Type.Object(
  {
    id: Type.Integer(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    name: Type.String(),
    creatorId: Nullable(Type.Integer()),
    color: Nullable(Type.String()),
    status: Type.Integer({ description: '0 in work, 1 done, 2 rejected, 3 needs attention' }),
    ...dates,
    dateBeginWithoutTime: Nullable(DateOnly()),
    dateEndWithoutTime: Nullable(DateOnly()),
    dateMove: Nullable(DateTime('when the task last changed column')),
    dateStatusChanged: Nullable(DateTime()),
    blockReason: Nullable(Type.String()),
    importance: Type.Integer({ description: '-1 not set, 0 low, 1 medium, 2 high, 3 critical' }),
    stages: Type.Array(TaskStageSchema),
    tags: Type.Array(Type.Integer(), { description: 'label ids' }),
    parentTaskIds: Type.Array(Type.Integer(), { description: 'tasks holding a subtask linked to this task' }),
    responsibleUserId: Type.Array(Type.Integer(), { description: 'assignees (user ids)' }),
    hasMessages: Type.Boolean(),
    hasDescription: Type.Boolean(),
    members: Type.Array(Type.Integer(), { description: 'user ids' }),
    list: Type.Array(SubtaskSchema, { description: 'subtasks' }),
    checklist: Type.Object({ items: Type.Integer(), itemsChecked: Type.Integer() }),
    cover: Nullable(CoverSchema),
    planTime: Type.Number({ description: 'planned time, hours' }),
    factTime: Type.Number({ description: 'spent time (sum of time records), hours' }),
    inspectors: Type.Array(InspectorSchema),
  },
  { $id: 'Task' },
);
export type TaskDto = Static<typeof TaskSchema>;

/** Task(archive form): the spec gives stages, tags, responsibleUserId and members as string arrays. */
export const ArchivedTaskSchema = Type.Object(
  {
    id: Type.Integer(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    name: Type.String(),
    color: Nullable(Type.String()),
    stages: Type.Array(Type.String(), { description: 'stage ids as strings' }),
    creatorId: Nullable(Type.Integer()),
    tags: Type.Array(Type.String()),
    responsibleUserId: Type.Array(Type.String()),
    status: Type.Integer(),
    dateEnd: Nullable(DateTime()),
    dateBegin: Nullable(DateTime()),
    dateStatusChanged: Nullable(DateTime()),
    blockReason: Nullable(Type.String()),
    dateMove: Nullable(DateTime()),
    hasMessages: Type.Boolean(),
    hasDescription: Type.Boolean(),
    members: Type.Array(Type.String()),
    importance: Type.Integer(),
  },
  { $id: 'ArchivedTask' },
);
export type ArchivedTaskDto = Static<typeof ArchivedTaskSchema>;

/** Task(colour form): flat, with the home column's stageId and order and the task's space. */
export const ColorTaskSchema = Type.Object(
  {
    id: Type.Integer(),
    color: Type.String({ description: '#RRGGBB, or "" when reset' }),
    creatorId: Nullable(Type.Integer()),
    dateBegin: Nullable(DateTime()),
    dateStatusChanged: Nullable(DateTime()),
    blockReason: Nullable(Type.String()),
    dateMove: Nullable(DateTime()),
    members: Type.Array(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    order: Type.String({ pattern: '^[0-9]+$', description: 'position in the home column' }),
    name: Type.String(),
    hasDescription: Type.Boolean(),
    hasMessages: Type.Boolean(),
    responsibleUserId: Type.Array(Type.Integer()),
    spaceId: Type.Integer(),
    stageId: Type.Integer({ description: 'the home column' }),
    status: Type.Integer(),
    dateEnd: Nullable(DateTime()),
    tags: Type.Array(Type.Integer()),
  },
  { $id: 'ColorTask' },
);
export type ColorTaskDto = Static<typeof ColorTaskSchema>;

export const TaskWithHistorySchema = Type.Object({ task: TaskSchema, history: HistorySchema }, { $id: 'TaskWithHistory' });
export const ColorTaskWithHistorySchema = Type.Object({ task: ColorTaskSchema, history: HistorySchema }, { $id: 'ColorTaskWithHistory' });

export const TaskParams = Type.Object({ taskId: Id('task id') });

const ResetColor = Type.Union([Color, Type.Literal(''), Type.Null()], { description: '#RRGGBB; "" or null resets it' });

export const CreateTaskBody = Type.Object({
  name: Name(),
  stageId: Id('the column to create the task in'),
  order: Type.Optional(OrderIn),
  responsibleUserId: Type.Optional(
    Type.Union([Type.Array(Id('user id'), { maxItems: 100 }), Id('user id'), Type.Null()], {
      description: 'assignees: members of a space holding the project (one id is accepted too)',
    }),
  ),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1_048_576 }))),
  color: Type.Optional(ResetColor),
  dateBegin: Type.Optional(Nullable(DateTime())),
  dateEnd: Type.Optional(Nullable(DateTime())),
  dateBeginWithoutTime: Type.Optional(Nullable(DateOnly())),
  dateEndWithoutTime: Type.Optional(Nullable(DateOnly())),
  importance: Type.Optional(Type.Integer({ minimum: -1, maximum: 3 })),
});
export type CreateTaskInput = Static<typeof CreateTaskBody>;

export const ColorBody = Type.Object({ color: ResetColor });
export const PlanTimeBody = Type.Object({ planTime: Type.Number({ minimum: 0, maximum: 100_000, description: 'planned time, hours' }) });
export const InspectorBody = Type.Object({ inspectorId: Id('user id of the reviewer; a member of a space holding the task') });
