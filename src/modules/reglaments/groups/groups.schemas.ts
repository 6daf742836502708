import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, OrderIn } from '../../../platform/schemas.js';

export const ReglamentGroupSchema = Type.Object(
  {
    id: Type.Integer({ description: 'the reglaments’ reglamentColumnId' }),
    spaceId: Type.Integer(),
    name: Type.String(),
    order: Type.String({ description: 'position among the space’s reglament groups, a numeric string' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'ReglamentGroup' },
);
export type ReglamentGroupDto = Static<typeof ReglamentGroupSchema>;

export const GroupParams = Type.Object({ spaceId: Id(), groupId: Id() });
export const CreateGroupBody = Type.Object({ name: Name(), order: Type.Optional(OrderIn) });
export const RenameGroupBody = Type.Object({ name: Name() });
export const MoveGroupBody = Type.Object({ order: OrderIn });
export const DeleteGroupQuery = Type.Object({
  moveTo: Type.Optional(Id('another group of the space to move the reglaments to (appended in their order); without it a non-empty group is not deleted')),
});
