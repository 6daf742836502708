import { Type, type Static } from 'typebox';
import { Paging } from '../../platform/http.js';
import { DateTime, Id, Name, Nullable, OrderIn } from '../../platform/schemas.js';

/** Content limit (conventions.md: document content 1 MiB), checked in bytes by the service. */
export const CONTENT_MAX_BYTES = 1_048_576;

export const PassedUserSchema = Type.Object(
  {
    createdAt: DateTime('when the user passed the test or acknowledged the reglament'),
    reglamentId: Type.Integer(),
    userId: Type.Integer(),
  },
  { $id: 'PassedUser' },
);
export type PassedUserDto = Static<typeof PassedUserSchema>;

const Creator = Type.Union(
  [
    Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      name: Type.String(),
      avatar: Nullable(Type.String({ description: 'download link of the avatar' })),
    }),
    Type.Null(),
  ],
  { description: 'null only when the creator account was deleted' },
);

/** Spec form returned by create: `order` is an integer here, and there is no `draft`. */
export const ReglamentCreatedSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    reglamentColumnId: Type.Integer({ description: 'the reglament group in the home space' }),
    content: Type.String(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    creatorId: Nullable(Type.Integer()),
    order: Type.Integer({ description: 'position in its group' }),
    usersPassed: Type.Array(PassedUserSchema),
    intro: Type.Boolean({ description: 'whether a space shows it as its intro reglament' }),
  },
  { $id: 'ReglamentCreated' },
);
export type ReglamentCreatedDto = Static<typeof ReglamentCreatedSchema>;

const listFields = {
  id: Type.Integer(),
  name: Type.String(),
  draft: Type.Boolean({ description: 'drafts are visible to space editors and admins only' }),
  reglamentColumnId: Type.Integer({ description: 'the reglament group in the listed space (the home space outside a space listing)' }),
  content: Type.String({ description: 'HTML or Markdown, stored as given' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  creator: Creator,
  order: Type.String({ description: 'position in its group, a numeric string' }),
  usersPassed: Type.Array(PassedUserSchema),
};

/** Spec form of a space's list (and of search results). */
export const ReglamentListItemSchema = Type.Object(listFields, { $id: 'ReglamentListItem' });
export type ReglamentListItemDto = Static<typeof ReglamentListItemSchema>;

export const ReglamentFullSchema = Type.Object(
  {
    ...listFields,
    intro: Type.Boolean(),
    mandatory: Type.Boolean({ description: 'members are asked to pass it (see GET /user/reglaments/mandatory)' }),
    favorite: Type.Boolean({ description: "the caller's flag" }),
    spaceIds: Type.Array(Type.Integer(), { description: 'spaces showing it, the home space first' }),
    questionsCount: Type.Integer(),
    passedByMe: Type.Boolean(),
  },
  { $id: 'ReglamentFull' },
);
export type ReglamentFullDto = Static<typeof ReglamentFullSchema>;

export const ReglamentParams = Type.Object({ reglamentId: Id() });
export const SpaceParams = Type.Object({ spaceId: Id() });
export const ReglamentSpaceParams = Type.Object({ reglamentId: Id(), spaceId: Id() });

const Content = Type.String({ maxLength: CONTENT_MAX_BYTES, description: 'HTML or Markdown, at most 1 MiB' });

export const CreateReglamentBody = Type.Object({
  name: Name(),
  reglamentColumnId: Id('the reglament group (of a space) to create it in'),
  content: Content,
  order: OrderIn,
  draft: Type.Boolean(),
});

export const NameBody = Type.Object({ name: Name() });
export const ContentBody = Type.Object({ content: Content });
export const ContentHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ maxLength: 100, description: 'the ETag of GET /reglaments/{id}; a stale one answers 409 STALE_VERSION' })),
});
export const MandatoryBody = Type.Object({ mandatory: Type.Boolean() });
export const FavoriteBody = Type.Object({ favorite: Type.Boolean({ description: "the caller's favourite flag" }) });
export const MoveBody = Type.Object({
  order: OrderIn,
  reglamentColumnId: Type.Optional(Id('a group of one of the reglament’s spaces; moves it there (default: its group in the home space)')),
});
export const AddSpaceBody = Type.Object({
  spaceId: Id(),
  reglamentColumnId: Type.Optional(Id('a group of that space (default: its first group)')),
});

export const ListQuery = Paging();
export const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'words to find in names and content (web-search syntax: "phrase", -word, or)' }),
  spaceId: Type.Optional(Id('only reglaments shown in this space')),
  draft: Type.Optional(Type.Boolean({ description: 'only drafts (true) or only published ones (false); drafts only where the caller is an editor' })),
  ...Paging().properties,
});
