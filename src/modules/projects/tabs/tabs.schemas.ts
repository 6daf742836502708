import { Type, type Static } from 'typebox';
import { TAB_TYPES, type TabType as TabTypeValue } from '../../../db/schema/tabs.js';
import { DateTime, Id, Name, Nullable, OrderIn } from '../../../platform/schemas.js';

// routes.md "Projects" 35-38 and the Tab resource: a project's custom tabs.

const TabType = Type.Unsafe<TabTypeValue>({
  type: 'string',
  enum: [...TAB_TYPES],
  description: 'link (url), doc (a documentation page, pageId), board (another project’s board, sourceProjectId), table (the project’s table)',
});
// Only web links: a tab is clicked in the app, so javascript: and the like never get in.
const Url = Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048, description: 'an http or https URL (link tabs)' });

export const TabSchema = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    type: TabType,
    name: Type.String(),
    url: Nullable(Type.String({ description: 'link tabs' })),
    pageId: Nullable(Type.Integer({ description: 'doc tabs; null once the page is deleted' })),
    sourceProjectId: Nullable(Type.Integer({ description: 'board tabs; null once that project is purged' })),
    order: Type.String({ description: 'position among the project’s tabs, a numeric string' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Tab' },
);
export type TabDto = Static<typeof TabSchema>;

export const TabParams = Type.Object({ projectId: Id('project id'), tabId: Id('tab id') });

export const CreateTabBody = Type.Object({
  type: TabType,
  name: Name(),
  url: Type.Optional(Url),
  pageId: Type.Optional(Id('a documentation page the caller can read (doc tabs)')),
  sourceProjectId: Type.Optional(Id('another project the caller can read (board tabs)')),
  order: Type.Optional(OrderIn),
});
export type CreateTabInput = Static<typeof CreateTabBody>;

export const UpdateTabBody = Type.Object(
  {
    name: Type.Optional(Name()),
    url: Type.Optional(Url),
    pageId: Type.Optional(Id('doc tabs')),
    sourceProjectId: Type.Optional(Id('board tabs')),
  },
  { minProperties: 1, description: 'what to change; the target fields must suit the tab’s type' },
);
export type UpdateTabInput = Static<typeof UpdateTabBody>;

export const MoveTabBody = Type.Object({ order: OrderIn });
