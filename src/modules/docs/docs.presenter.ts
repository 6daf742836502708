import { iso } from '../../platform/http.js';
import type { DocumentationGroupDto, PageDto, PageNode } from './docs.schemas.js';

/** A page row with the caller's collapsed flag, as the page queries return it. */
export interface PageRecord {
  id: number;
  spaceId: number;
  documentationGroupId: number;
  parentPageId: number | null;
  name: string;
  icon: string | null;
  order: number;
  publicToken: string | null;
  archivedAt: Date | string | null;
  version: number;
  creatorId: number | null;
  updatedById: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  collapsed: boolean | null;
}

const idOrNull = (v: number | null) => (v === null ? null : Number(v));

/** The public address of a published page: the API's public route under the service's PUBLIC_URL. */
export const publicPageUrl = (publicBase: string, token: string) => `${publicBase}/public/pages/${token}`;

export function presentPage(r: PageRecord, publicBase: string): PageDto {
  return {
    id: Number(r.id),
    spaceId: Number(r.spaceId),
    documentationGroupId: Number(r.documentationGroupId),
    parentPageId: idOrNull(r.parentPageId),
    name: r.name,
    icon: r.icon,
    order: String(r.order),
    public: r.publicToken !== null,
    publicUrl: r.publicToken === null ? null : publicPageUrl(publicBase, r.publicToken),
    archived: r.archivedAt !== null,
    version: Number(r.version),
    creatorId: idOrNull(r.creatorId),
    updatedById: idOrNull(r.updatedById),
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    collapsed: Boolean(r.collapsed),
  };
}

export interface VersionRecord {
  id: number;
  pageId: number;
  version: number;
  userId: number | null;
  size: number;
  createdAt: Date | string;
}

export const presentVersion = (r: VersionRecord) => ({
  id: Number(r.id),
  pageId: Number(r.pageId),
  version: Number(r.version),
  userId: idOrNull(r.userId),
  size: Number(r.size),
  createdAt: iso(r.createdAt)!,
});

export interface GroupRecord {
  id: number;
  spaceId: number;
  name: string;
  order: number;
  createdAt: Date | string;
  updatedAt: Date | string;
}

export interface TreeRecord {
  id: number;
  documentationGroupId: number;
  parentPageId: number | null;
  name: string;
  icon: string | null;
  order: number;
  archived: boolean;
  collapsed: boolean | null;
}

/**
 * Builds each group's page tree from flat rows sorted by (order, id). A page whose parent is not in
 * the rows (an archived parent left out of the live view) is shown at the top level of its group.
 */
export function presentGroups(groups: GroupRecord[], rows: TreeRecord[]): DocumentationGroupDto[] {
  const nodes = new Map<number, PageNode>();
  for (const r of rows) {
    nodes.set(Number(r.id), {
      id: Number(r.id),
      name: r.name,
      icon: r.icon,
      order: String(r.order),
      archived: Boolean(r.archived),
      collapsed: Boolean(r.collapsed),
      children: [],
    });
  }
  const roots = new Map<number, PageNode[]>(groups.map((g) => [Number(g.id), []]));
  for (const r of rows) {
    const node = nodes.get(Number(r.id))!;
    const parent = r.parentPageId === null ? undefined : nodes.get(Number(r.parentPageId));
    if (parent) parent.children.push(node);
    else roots.get(Number(r.documentationGroupId))?.push(node);
  }
  return groups.map((g) => ({
    id: Number(g.id),
    spaceId: Number(g.spaceId),
    name: g.name,
    order: String(g.order),
    pages: roots.get(Number(g.id)) ?? [],
    createdAt: iso(g.createdAt)!,
    updatedAt: iso(g.updatedAt)!,
  }));
}
