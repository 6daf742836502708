import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, OrderIn, OrderOut } from '../../../platform/schemas.js';

export const SpaceGroupSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    order: OrderOut,
    collapsed: Type.Boolean(),
    spaceIds: Type.Array(Type.Integer(), { description: "the caller's spaces in the folder, in their order" }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'SpaceGroup' },
);
export type SpaceGroupDto = Static<typeof SpaceGroupSchema>;

export const GroupParams = Type.Object({ groupId: Id() });

const SpaceIds = Type.Array(Id('a space the caller can read'), { maxItems: 500, uniqueItems: true });

export const CreateGroupBody = Type.Object({
  name: Name(),
  order: Type.Optional(OrderIn),
  spaceIds: Type.Optional(SpaceIds),
});
export const RenameGroupBody = Type.Object({ name: Name() });
export const MoveGroupBody = Type.Object({ order: OrderIn });
export const CollapsedBody = Type.Object({ collapsed: Type.Boolean() });
export const GroupSpacesBody = Type.Object({
  spaceIds: Type.Array(Id('a space the caller can read'), {
    maxItems: 500,
    uniqueItems: true,
    description: 'exactly the spaces the folder holds, in this order; spaces left out are ungrouped',
  }),
});
