import { Type, type Static } from 'typebox';
import { Id, OrderOut } from '../../../platform/schemas.js';

export const SortParams = Type.Object({ projectId: Id('project id'), stageId: Id('column id') });

export const SortBody = Type.Object({
  by: Type.Union(
    [Type.Literal('dateEnd'), Type.Literal('createdAt'), Type.Literal('color'), Type.Literal('importance'), Type.Literal('assignee')],
    { description: 'dateEnd: due date; createdAt; color: #RRGGBB text; importance (not set counts as empty); assignee: the alphabetically first assignee name' },
  ),
  direction: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'default asc, except importance: desc (most important first); empty values go last either way' }),
  ),
});
export type SortInput = Static<typeof SortBody>;
export type SortKey = SortInput['by'];

export const SortResult = Type.Array(Type.Object({ taskId: Type.Integer(), order: OrderOut }), { description: "the column's tasks in their new order" });
export type SortResultDto = Static<typeof SortResult>;
