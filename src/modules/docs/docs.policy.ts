import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';
import { notFound } from '../../platform/errors.js';

// The documentation rows of conventions.md's role table: editors write, readers read and keep their own tree state.
const RULES = {
  read: 'reader', // groups, page trees, pages, versions
  personalize: 'reader', // the caller's collapsed flag
  write: 'editor', // groups, pages: create, content, rename, icon, move, nest, duplicate, archive, delete, files, publish
} as const satisfies Record<string, SpaceRole>;

export type DocsAction = keyof typeof RULES;

/** Documentation of a space: 404 when the caller cannot see the space, 403 below the action's role. */
export async function authorizeDocsInSpace(db: Queryable, actor: Actor, spaceId: number, action: DocsAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}

export interface GroupRef {
  id: number;
  spaceId: number;
}

/** A documentation group of the space in the caller's organization (404 otherwise), after the space check. */
export async function authorizeGroup(db: Queryable, actor: Actor, spaceId: number, groupId: number, action: DocsAction, lock = false): Promise<GroupRef> {
  await authorizeDocsInSpace(db, actor, spaceId, action);
  const rows = await queryRows<GroupRef>(
    db,
    sql`select id, space_id as "spaceId" from documentation_groups
        where id = ${groupId} and space_id = ${spaceId} and organization_id = ${actor.organizationId}
        ${lock ? sql`for update` : sql``}`,
  );
  if (!rows[0]) throw notFound('documentation group');
  return { id: Number(rows[0].id), spaceId: Number(rows[0].spaceId) };
}

export interface PageRef {
  id: number;
  spaceId: number;
  documentationGroupId: number;
  parentPageId: number | null;
  version: number;
  archived: boolean;
}

/**
 * A page of the caller's organization and the caller's role in its space: 404 when either is not
 * visible, 403 below the action's role. Writers lock the page row so concurrent writes serialize.
 */
export async function authorizePage(db: Queryable, actor: Actor, pageId: number, action: DocsAction): Promise<PageRef> {
  const rows = await queryRows<PageRef>(
    db,
    sql`select id, space_id as "spaceId", documentation_group_id as "documentationGroupId", parent_page_id as "parentPageId",
               version, archived_at is not null as archived
        from pages where id = ${pageId} and organization_id = ${actor.organizationId}
        ${action === 'write' ? sql`for update` : sql``}`,
  );
  const page = rows[0];
  requireRole(page ? await spaceRoleOf(db, actor, Number(page.spaceId)) : null, RULES[action], 'page');
  return {
    id: Number(page!.id),
    spaceId: Number(page!.spaceId),
    documentationGroupId: Number(page!.documentationGroupId),
    parentPageId: page!.parentPageId === null ? null : Number(page!.parentPageId),
    version: Number(page!.version),
    archived: Boolean(page!.archived),
  };
}
