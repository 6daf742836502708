import { Type, type Static } from 'typebox';
import { DateTime, FileSchema, Id, Name, Nullable, OrderIn } from '../../platform/schemas.js';
import { Offset } from '../../platform/http.js';

export const Icon = Type.String({ minLength: 1, maxLength: 100, description: 'emoji or icon key' });
export const Content = Type.String({
  maxLength: 1_048_576,
  description: 'HTML or Markdown, stored as sent; at most 1 MiB (UTF-8 bytes)',
});

export const PageSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer(),
    documentationGroupId: Type.Integer(),
    parentPageId: Nullable(Type.Integer()),
    name: Type.String(),
    icon: Nullable(Type.String()),
    order: Type.String({ description: 'position among its siblings (numeric string)' }),
    public: Type.Boolean(),
    publicUrl: Nullable(Type.String({ description: 'unguessable public address while published, else null' })),
    archived: Type.Boolean(),
    version: Type.Integer({ description: 'content version; also the ETag of the page' }),
    creatorId: Nullable(Type.Integer()),
    updatedById: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    collapsed: Type.Boolean({ description: "the caller's own flag in the tree" }),
  },
  { $id: 'DocumentationPage' },
);
export type PageDto = Static<typeof PageSchema>;

export const PageFullSchema = Type.Object(
  {
    ...PageSchema.properties,
    content: Type.String({ description: 'the source as stored (HTML or Markdown); the public route serves it sanitized' }),
    files: Type.Array(FileSchema),
  },
  { $id: 'DocumentationPageFull' },
);
export type PageFullDto = Static<typeof PageFullSchema>;

export const PageVersionSchema = Type.Object(
  {
    id: Type.Integer(),
    pageId: Type.Integer(),
    version: Type.Integer({ description: 'the page version this entry ends at (merged writes skip numbers)' }),
    userId: Nullable(Type.Integer()),
    size: Type.Integer({ description: 'content size in bytes' }),
    createdAt: DateTime('time of the last write merged into this entry'),
  },
  { $id: 'PageVersion' },
);

export const PageNodeSchema = Type.Cyclic(
  {
    PageNode: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      icon: Nullable(Type.String()),
      order: Type.String(),
      archived: Type.Boolean(),
      collapsed: Type.Boolean({ description: "the caller's flag" }),
      children: Type.Array(Type.Ref('PageNode')),
    }),
  },
  'PageNode',
);
export interface PageNode {
  id: number;
  name: string;
  icon: string | null;
  order: string;
  archived: boolean;
  collapsed: boolean;
  children: PageNode[];
}

export const DocumentationGroupSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer(),
    name: Type.String(),
    order: Type.String({ description: 'position in the space (numeric string)' }),
    pages: Type.Array(PageNodeSchema, { description: 'the page tree of the group, siblings in order' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'DocumentationGroup' },
);
export type DocumentationGroupDto = Static<typeof DocumentationGroupSchema>;

export const PublicPageSchema = Type.Object(
  {
    name: Type.String(),
    icon: Nullable(Type.String()),
    content: Type.String({ description: 'sanitized HTML (Markdown sources are rendered): no scripts, event handlers or javascript: URLs' }),
    updatedAt: DateTime(),
    children: Type.Array(Type.Object({ publicToken: Type.String(), name: Type.String() }), { description: 'published, unarchived child pages in order (at most 500)' }),
  },
  { $id: 'PublicPage' },
);
export type PublicPageDto = Static<typeof PublicPageSchema>;

export const SpaceParams = Type.Object({ spaceId: Id() });
export const GroupParams = Type.Object({ spaceId: Id(), groupId: Id() });
export const PageParams = Type.Object({ pageId: Id() });
export const PublicParams = Type.Object({ publicToken: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$' }) });

export const GroupsQuery = Type.Object({
  archived: Type.Optional(Type.Boolean({ default: false, description: 'include archived pages in the trees (flagged archived)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'groups per page (default 50, max 500)' })),
  offset: Offset('groups to skip'),
});
export const VersionsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});

export const CreateGroupBody = Type.Object({ name: Name(), order: Type.Optional(OrderIn) });
export const NameBody = Type.Object({ name: Name() });

export const CreatePageBody = Type.Object({
  spaceId: Id(),
  documentationGroupId: Id(),
  parentPageId: Type.Optional(Nullable(Id('a page of the same space; the new page joins its group'))),
  name: Name(),
  icon: Type.Optional(Nullable(Icon)),
  content: Type.Optional(Content),
  order: Type.Optional(OrderIn),
});
export const ContentBody = Type.Object({ content: Content });
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ maxLength: 200, description: 'the ETag read with the page; a stale one answers 409 STALE_VERSION' })),
});
export const IconBody = Type.Object({ icon: Nullable(Icon) });
export const MoveBody = Type.Object({
  order: OrderIn,
  documentationGroupId: Type.Optional(Id('another group of the space: the page (with its subtree) moves to its top level')),
});
export const ParentBody = Type.Object({
  parentPageId: Nullable(Id('the new parent; null moves the page to the top level of its group')),
  order: Type.Optional(OrderIn),
});
export const CollapsedBody = Type.Object({ collapsed: Type.Boolean() });
export const DuplicateBody = Type.Object({ withChildren: Type.Optional(Type.Boolean({ default: false, description: 'copy the unarchived subtree too' })) });
export const PublicBody = Type.Object({ public: Type.Boolean() });
