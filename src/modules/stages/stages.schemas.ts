import { Type, type Static } from 'typebox';
import { Id, Name, OrderIn } from '../../platform/schemas.js';

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

export const StageParams = Type.Object({ projectId: Id(), stageId: Id() });

export const CreateStageBody = Type.Object({
  name: Name(),
  order: OrderIn,
  tasks: Type.Optional(Type.Array(Id('task id'), { maxItems: 10000, description: 'tasks of the project to move into the new column' })),
});
