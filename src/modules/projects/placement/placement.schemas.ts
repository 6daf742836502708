import { Type } from 'typebox';
import { Id, Nullable, OrderIn } from '../../../platform/schemas.js';

const WhichSpace = Id('the space whose sidebar is meant: the home space (default) or one the project is linked into');

export const MoveProjectBody = Type.Object({
  order: OrderIn,
  spaceId: Type.Optional(WhichSpace),
});

export const ProjectGroupChangeBody = Type.Object({
  projectGroupId: Nullable(Id('target group (of the home space or of a space the project is linked into); null ungroups')),
  order: Type.Optional(OrderIn),
  spaceId: Type.Optional(WhichSpace),
});

export const LinkProjectBody = Type.Object({
  spaceId: Id('the other space to show the project in'),
  projectGroupId: Type.Optional(Nullable(Id('group of that space'))),
});

export const LinkParams = Type.Object({ projectId: Id(), spaceId: Id() });
