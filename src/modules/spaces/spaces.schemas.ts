import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, Nullable, OrderIn } from '../../platform/schemas.js';

export const SpaceRoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('member'), Type.Literal('reader')]);
export const InvitedRoleSchema = Type.Union([Type.Literal('editor'), Type.Literal('member'), Type.Literal('reader')]);

export const SpaceSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    icon: Nullable(Type.String()),
    iconColor: Nullable(Type.String()),
    background: Nullable(Type.String()),
    customBackground: Nullable(Type.String({ description: 'download link of the custom background image' })),
    archived: Type.Boolean(),
    archivedAt: Nullable(DateTime()),
    introReglamentId: Nullable(Type.Integer()),
    membersCount: Type.Integer(),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    role: SpaceRoleSchema,
    favorite: Type.Boolean(),
    order: Type.String({ description: "the caller's position of the space, a numeric string" }),
    spaceGroupId: Nullable(Type.Integer()),
  },
  { $id: 'Space' },
);
export type SpaceDto = Static<typeof SpaceSchema>;

const GroupRef = Type.Object({ id: Type.Integer(), name: Type.String(), order: Type.String() });

export const InviteLinkSchema = Type.Object(
  {
    id: Type.Integer(),
    token: Type.String(),
    url: Type.String(),
    role: InvitedRoleSchema,
    enabled: Type.Boolean(),
    createdById: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'InviteLink' },
);

export const SpaceFullSchema = Type.Object(
  {
    ...SpaceSchema.properties,
    projectGroups: Type.Array(GroupRef),
    reglamentGroups: Type.Array(GroupRef),
    documentationGroups: Type.Array(GroupRef),
    inviteLink: Nullable(InviteLinkSchema, ),
  },
  { $id: 'SpaceFull' },
);
export type SpaceFullDto = Static<typeof SpaceFullSchema>;

export const SpaceParams = Type.Object({ spaceId: Id() });

export const CreateSpaceBody = Type.Object({
  name: Name(),
  icon: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  iconColor: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  background: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  spaceGroupId: Type.Optional(Nullable(Id())),
});

export const ListSpacesQuery = Type.Object({
  archived: Type.Optional(Type.Boolean({ default: false, description: 'archived spaces instead of active ones' })),
  favorite: Type.Optional(Type.Boolean({ description: 'only (non-)favourite spaces' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export { OrderIn };
