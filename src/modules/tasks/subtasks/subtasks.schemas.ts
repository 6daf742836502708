import { Type, type Static } from 'typebox';
import { Id, Name, OrderIn } from '../../../platform/schemas.js';
import { Offset } from '../../../platform/http.js';

// Subtasks (routes.md "Task properties" 28–34). The Subtask form itself is tasks.schemas' SubtaskSchema.

export const SubtaskParams = Type.Object({ taskId: Id('task id'), subtaskId: Id('subtask id') });

export const SubtasksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500, description: 'page size (default 500, max 500)' })),
  offset: Offset(),
});

export const CreateSubtaskBody = Type.Object({
  name: Name(),
  order: Type.Optional(OrderIn),
});
export type CreateSubtaskInput = Static<typeof CreateSubtaskBody>;

export const SubtaskNameBody = Type.Object({ name: Name() });
export const SubtaskOrderBody = Type.Object({ order: OrderIn });
export const IsCheckedBody = Type.Object({ isChecked: Type.Boolean({ description: 'done; a linked child task is finished (status 1) or reopened (status 0) with it' }) });
export const ChildTaskBody = Type.Object({ stageId: Id('the column the child task is created in') });
