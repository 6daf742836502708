import { Type, type Static } from 'typebox';
import { Color, DateTime, Id, Name, Nullable, OrderIn } from '../../platform/schemas.js';
import { Offset } from '../../platform/http.js';

export const SpaceRoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('member'), Type.Literal('reader')]);
export const InvitedRoleSchema = Type.Union([Type.Literal('editor'), Type.Literal('member'), Type.Literal('reader')], {
  description: 'role given to whoever joins by the link (never admin)',
});

export const SpaceSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    icon: Nullable(Type.String()),
    iconColor: Nullable(Type.String()),
    background: Nullable(Type.String({ description: 'preset key or #RRGGBB; null when none or a custom image is set' })),
    customBackground: Nullable(Type.String({ description: 'download link of the custom background image' })),
    archived: Type.Boolean(),
    archivedAt: Nullable(DateTime()),
    introReglamentId: Nullable(Type.Integer()),
    membersCount: Type.Integer(),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    role: SpaceRoleSchema,
    favorite: Type.Boolean({ description: "the caller's flag" }),
    order: Type.String({ description: "the caller's position of the space within its folder (or among ungrouped spaces), a numeric string" }),
    spaceGroupId: Nullable(Type.Integer({ description: "the caller's folder" })),
  },
  { $id: 'Space' },
);
export type SpaceDto = Static<typeof SpaceSchema>;

const GroupRef = Type.Object({ id: Type.Integer(), name: Type.String(), order: Type.String() });

export const InviteLinkSchema = Type.Object(
  {
    id: Type.Integer(),
    token: Type.String(),
    url: Type.String({ description: 'path of the join data: GET it for the space, POST …/join to join' }),
    role: InvitedRoleSchema,
    enabled: Type.Boolean(),
    createdById: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'InviteLink' },
);
export type InviteLinkDto = Static<typeof InviteLinkSchema>;

export const SpaceFullSchema = Type.Object(
  {
    ...SpaceSchema.properties,
    projectGroups: Type.Array(GroupRef),
    reglamentGroups: Type.Array(GroupRef),
    documentationGroups: Type.Array(GroupRef),
    inviteLink: Nullable(InviteLinkSchema),
  },
  { $id: 'SpaceFull' },
);
export type SpaceFullDto = Static<typeof SpaceFullSchema>;

export const SpaceParams = Type.Object({ spaceId: Id() });

/** A preset background key (lowercase letters, digits, dashes) or a colour. */
export const Background = Type.Union(
  [Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,49}$', description: 'preset key' }), Color],
  { description: 'preset key or #RRGGBB' },
);
export const Icon = Type.String({ minLength: 1, maxLength: 100, description: 'emoji or icon key' });

export const CreateSpaceBody = Type.Object({
  name: Name(),
  icon: Type.Optional(Nullable(Icon)),
  iconColor: Type.Optional(Nullable(Color)),
  background: Type.Optional(Nullable(Background)),
  spaceGroupId: Type.Optional(Nullable(Id("one of the caller's space groups"))),
});

export const ListSpacesQuery = Type.Object({
  archived: Type.Optional(Type.Boolean({ default: false, description: 'archived spaces instead of active ones' })),
  favorite: Type.Optional(Type.Boolean({ description: 'only (non-)favourite spaces' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});

export const ReorderSpaceBody = Type.Object({
  order: OrderIn,
  spaceGroupId: Type.Optional(Nullable(Id("the caller's folder to move the space into; null ungroups it; absent keeps it"))),
});

export const FavoriteBody = Type.Object({ favorite: Type.Boolean() });

export { OrderIn };
