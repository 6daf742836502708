import { Type, type Static } from 'typebox';
import { Color, Id, Name, OrderIn } from '../../platform/schemas.js';

/** Project stage (column) as the spec's create response gives it: `order` a numeric string. */
export const StageSchema = Type.Object(
  {
    id: Type.Integer(),
    order: Type.String(),
    name: Type.String(),
    projectId: Type.Integer(),
    tasksLimit: Type.Integer({ description: 'maximum tasks in the column, 0 = no limit' }),
    color: Type.String(),
  },
  { $id: 'Stage' },
);
export type StageDto = Static<typeof StageSchema>;

/** The spec's colour-update response: `order` an integer, plus hasAutomatization. */
export const StageColorSchema = Type.Object(
  {
    id: Type.Integer(),
    order: Type.Integer(),
    name: Type.String(),
    projectId: Type.Integer(),
    tasksLimit: Type.Integer(),
    color: Type.String(),
    hasAutomatization: Type.Boolean({ description: 'an automation rule uses this column' }),
  },
  { $id: 'StageWithAutomatization' },
);
export type StageColorDto = Static<typeof StageColorSchema>;

export const StageList = Type.Array(StageSchema);

export const StageParams = Type.Object({ projectId: Id(), stageId: Id() });
export const StagesParams = Type.Object({ projectId: Id() });

export const CreateStageBody = Type.Object({
  name: Name(),
  order: OrderIn,
  tasks: Type.Optional(Type.Array(Id('task id'), { maxItems: 10000, description: 'tasks of the project to move into the new column' })),
});

export const RenameStageBody = Type.Object({ name: Name() });
export const TasksLimitBody = Type.Object({
  tasksLimit: Type.Integer({ minimum: 0, maximum: 100000, description: 'maximum tasks in the column, 0 = no limit' }),
});
export const StageColorBody = Type.Object({
  color: Type.Union([Color, Type.Literal('')], { description: 'colour #RRGGBB, or "" to reset' }),
});
export const MoveStageBody = Type.Object({ order: OrderIn });
export const ReorderStagesBody = Type.Object({
  ids: Type.Array(Id('stage id'), { minItems: 1, maxItems: 1000, uniqueItems: true, description: "every column of the project, in the new order" }),
});
export const MoveStageToProjectBody = Type.Object({
  projectId: Id('target project'),
  order: Type.Optional(OrderIn),
});
export const DeleteStageQuery = Type.Object({
  moveTasksTo: Type.Optional(Id('column of the same project that receives the tasks')),
});
