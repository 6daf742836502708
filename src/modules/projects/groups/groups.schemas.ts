import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, OrderIn } from '../../../platform/schemas.js';

export const ProjectGroupSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer(),
    name: Type.String(),
    order: Type.String({ description: 'position among the space’s project groups, a numeric string' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'ProjectGroup' },
);
export type ProjectGroupDto = Static<typeof ProjectGroupSchema>;

export const GroupParams = Type.Object({ spaceId: Id(), groupId: Id() });

export const CreateGroupBody = Type.Object({ name: Name(), order: Type.Optional(OrderIn) });
export const RenameGroupBody = Type.Object({ name: Name() });
export const MoveGroupBody = Type.Object({ order: OrderIn });
