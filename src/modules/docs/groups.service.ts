import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { compact, placeAt } from '../../platform/ordering.js';
import { authorizeDocsInSpace, authorizeGroup } from './docs.policy.js';
import { presentGroups, type GroupRecord, type TreeRecord } from './docs.presenter.js';
import type { DocumentationGroupDto } from './docs.schemas.js';
import { groupsScope, idArray } from './docs.queries.js';
import { emitSpaceFull } from '../spaces/spaces.events.js';

const GROUP_COLUMNS = sql`id, space_id as "spaceId", name, "order", created_at as "createdAt", updated_at as "updatedAt"`;

/** Groups with their page trees: one query for the groups, one for all their pages. */
async function withTrees(ctx: Ctx, groups: GroupRecord[], archived: boolean): Promise<DocumentationGroupDto[]> {
  if (groups.length === 0) return [];
  const rows = await queryRows<TreeRecord>(
    ctx.db,
    sql`select p.id, p.documentation_group_id as "documentationGroupId", p.parent_page_id as "parentPageId", p.name, p.icon,
               p."order", p.archived_at is not null as archived, us.collapsed
        from pages p
        left join page_user_settings us on us.page_id = p.id and us.user_id = ${ctx.actor.userId}
        where p.documentation_group_id = any(${idArray(groups.map((g) => Number(g.id)))}::bigint[])
          and p.organization_id = ${ctx.actor.organizationId}
          ${archived ? sql`` : sql`and p.archived_at is null`}
        order by p."order", p.id`,
  );
  return presentGroups(groups, rows);
}

async function loadGroup(ctx: Ctx, groupId: number): Promise<DocumentationGroupDto> {
  const groups = await queryRows<GroupRecord>(
    ctx.db,
    sql`select ${GROUP_COLUMNS} from documentation_groups where id = ${groupId} and organization_id = ${ctx.actor.organizationId}`,
  );
  if (!groups[0]) throw notFound('documentation group');
  return (await withTrees(ctx, groups, false))[0]!;
}

/**
 * A space's documentation groups in order, each with its page tree. Live pages only, unless
 * `archived`: then archived pages are in the trees too, flagged. The groups are paged; each tree is whole.
 */
export async function listGroups(ctx: Ctx, spaceId: number, query: { archived: boolean; limit: number; offset: number }) {
  await authorizeDocsInSpace(ctx.db, ctx.actor, spaceId, 'read');
  const groups = await queryRows<GroupRecord & { total: number }>(
    ctx.db,
    sql`select ${GROUP_COLUMNS}, count(*) over ()::int as total from documentation_groups
        where space_id = ${spaceId} and organization_id = ${ctx.actor.organizationId}
        order by "order", id limit ${query.limit} offset ${query.offset}`,
  );
  return { items: await withTrees(ctx, groups, query.archived), total: Number(groups[0]?.total ?? 0) };
}

export async function createGroup(ctx: Ctx, spaceId: number, input: { name: string; order?: number }): Promise<DocumentationGroupDto> {
  await authorizeDocsInSpace(ctx.db, ctx.actor, spaceId, 'write');
  const [row] = await queryRows<{ id: number }>(
    ctx.db,
    sql`insert into documentation_groups (organization_id, space_id, name) values (${ctx.actor.organizationId}, ${spaceId}, ${input.name.trim()})
        returning id`,
  );
  await placeAt(ctx.db, groupsScope(spaceId), Number(row!.id), input.order);
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, Number(row!.id));
}

export async function renameGroup(ctx: Ctx, spaceId: number, groupId: number, name: string): Promise<DocumentationGroupDto> {
  await authorizeGroup(ctx.db, ctx.actor, spaceId, groupId, 'write', true);
  await ctx.db.execute(sql`update documentation_groups set name = ${name.trim()}, updated_at = now() where id = ${groupId}`);
  await emitSpaceFull(ctx, 'space.updated', spaceId);
  return loadGroup(ctx, groupId);
}

/** Only an empty group goes: its pages (archived ones too) must be moved or deleted first. */
export async function deleteGroup(ctx: Ctx, spaceId: number, groupId: number): Promise<void> {
  await authorizeGroup(ctx.db, ctx.actor, spaceId, groupId, 'write', true);
  const pages = await queryRows<{ n: number }>(ctx.db, sql`select count(*)::int as n from pages where documentation_group_id = ${groupId}`);
  if (Number(pages[0]?.n ?? 0) > 0) throw new AppError('GROUP_NOT_EMPTY', 'the documentation group still holds pages');
  await ctx.db.execute(sql`delete from documentation_groups where id = ${groupId}`);
  await compact(ctx.db, groupsScope(spaceId));
  await emitSpaceFull(ctx, 'space.updated', spaceId);
}
