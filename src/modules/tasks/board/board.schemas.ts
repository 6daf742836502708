import { Type } from 'typebox';
import { Id, OrderIn } from '../../../platform/schemas.js';
import { HistorySchema } from '../history/history.schemas.js';
import { ArchivedTaskSchema, TaskSchema } from '../tasks.schemas.js';

export const MoveTasksBody = Type.Object({
  taskIds: Type.Array(Id('task id'), { minItems: 1, maxItems: 500, description: 'tasks to move, placed in this order' }),
  stageId: Id('the column to move the tasks into'),
  order: Type.Optional(OrderIn),
  fromStageId: Type.Optional(Id('the column the tasks leave (default: their column in the target project, else their home column)')),
});

export const MoveTasksResult = Type.Object({ tasks: Type.Array(TaskSchema), history: Type.Array(HistorySchema) });

export const ArchiveBody = Type.Object({ stageId: Id('the column the task is archived from (one it sits in)') });
export const ArchiveResult = Type.Object({ task: ArchivedTaskSchema, history: HistorySchema });

export const RestoreBody = Type.Object({
  stageId: Type.Optional(Id('the column to restore into (default: the columns it was archived from)')),
});
