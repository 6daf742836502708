import { Type, type Static } from 'typebox';
import { Id } from '../../../platform/schemas.js';
import { Statuses, taskPaging } from '../actions/actions.schemas.js';

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '\\S',
    description: 'web-search syntax: words (all must occur), "a phrase", or, -excluded; matched in names, descriptions and chat messages',
  }),
  spaceId: Type.Optional(Id('only tasks of projects at home in or linked into this space')),
  projectId: Type.Optional(Id('only tasks on this project board')),
  statuses: Type.Optional(Statuses),
  archived: Type.Optional(Type.Boolean({ default: false, description: 'true: search the archive instead of the boards' })),
  ...taskPaging,
});
export type SearchQueryDto = Static<typeof SearchQuery>;
