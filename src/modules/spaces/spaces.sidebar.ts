import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { spaceUserSettings } from '../../db/schema/index.js';
import { compact, placeAt, type OrderedScope } from '../../platform/ordering.js';
import { idArray } from '../../db/client.js';

/**
 * A user's sidebar in one organization: each space they have a settings row for sits in one folder
 * (space group) or among the ungrouped spaces, at a dense position within it. Positions are per
 * folder, so moving a space renumbers only the folder it left and the one it entered.
 */
export interface SidebarOwner {
  organizationId: number;
  userId: number;
}

export const folderScope = (owner: SidebarOwner, groupId: number | null): OrderedScope => ({
  table: 'space_user_settings',
  key: 'space_id',
  where: sql`organization_id = ${owner.organizationId} and user_id = ${owner.userId} and ${
    groupId === null ? sql`space_group_id is null` : sql`space_group_id = ${groupId}`
  }`,
});

const entryOf = (owner: SidebarOwner, spaceId: number) =>
  and(eq(spaceUserSettings.spaceId, spaceId), eq(spaceUserSettings.userId, owner.userId), eq(spaceUserSettings.organizationId, owner.organizationId));

/**
 * The user's settings row for the space, created at the end of the ungrouped spaces if missing
 * (organization owners and admins see spaces they never joined, so rows appear lazily).
 */
export async function ensureSidebarEntry(db: Queryable, owner: SidebarOwner, spaceId: number): Promise<{ spaceGroupId: number | null }> {
  const [row] = await db.select({ spaceGroupId: spaceUserSettings.spaceGroupId }).from(spaceUserSettings).where(entryOf(owner, spaceId)).for('update');
  if (row) return row;
  await db
    .insert(spaceUserSettings)
    .values({ organizationId: owner.organizationId, spaceId, userId: owner.userId, order: 0, spaceGroupId: null })
    .onConflictDoNothing();
  await placeAt(db, folderScope(owner, null), spaceId, undefined);
  return { spaceGroupId: null };
}

/**
 * Puts the space at `position` of a folder (null: ungrouped; undefined: the folder it is in) or, with
 * no position, at the folder's end.
 */
export async function placeInSidebar(
  db: Queryable,
  owner: SidebarOwner,
  spaceId: number,
  target: number | null | undefined,
  position: number | undefined,
): Promise<void> {
  const current = await ensureSidebarEntry(db, owner, spaceId);
  const groupId = target === undefined ? current.spaceGroupId : target;
  if (current.spaceGroupId !== groupId) {
    await db.update(spaceUserSettings).set({ spaceGroupId: groupId }).where(entryOf(owner, spaceId));
    await compact(db, folderScope(owner, current.spaceGroupId));
  }
  await placeAt(db, folderScope(owner, groupId), spaceId, position);
}

export async function setFavoriteEntry(db: Queryable, owner: SidebarOwner, spaceId: number, favorite: boolean): Promise<void> {
  await ensureSidebarEntry(db, owner, spaceId);
  await db.update(spaceUserSettings).set({ favorite }).where(entryOf(owner, spaceId));
}

/**
 * Renumbers every folder of the given users in one organization densely, after rows left them
 * (a deleted space, a removed member). Locks the rows first, like platform/ordering.ts.
 */
export async function compactSidebars(db: Queryable, organizationId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  const users = `{${userIds.join(',')}}`;
  await db.execute(sql`select 1 from space_user_settings
    where organization_id = ${organizationId} and user_id = any(${users}::bigint[]) for update`);
  await db.execute(sql`
    update space_user_settings t set "order" = v.pos
    from (select space_id, user_id,
                 (row_number() over (partition by user_id, space_group_id order by "order", space_id) - 1)::int as pos
          from space_user_settings
          where organization_id = ${organizationId} and user_id = any(${users}::bigint[])) v
    where t.space_id = v.space_id and t.user_id = v.user_id and t."order" <> v.pos`);
}

/** Drops one user's entry for a space and closes the gap it leaves in its folder. */
export async function removeSidebarEntry(db: Queryable, owner: SidebarOwner, spaceId: number): Promise<void> {
  const [gone] = await db.delete(spaceUserSettings).where(entryOf(owner, spaceId)).returning({ spaceGroupId: spaceUserSettings.spaceGroupId });
  if (gone) await compact(db, folderScope(owner, gone.spaceGroupId));
}

const lockSidebar = (db: Queryable, owner: SidebarOwner) =>
  db.execute(sql`select 1 from space_user_settings
    where organization_id = ${owner.organizationId} and user_id = ${owner.userId} order by space_id for update`);

/**
 * Moves the spaces of a folder, except those in `keep`, to the end of the ungrouped spaces in their
 * folder order (the offset past the current last position keeps them after the ones already there).
 */
async function ungroup(db: Queryable, owner: SidebarOwner, groupId: number, keep: number[]): Promise<void> {
  await db.execute(sql`
    update space_user_settings
    set space_group_id = null,
        "order" = "order" + 1 + coalesce((select max(x."order") from space_user_settings x
          where x.organization_id = ${owner.organizationId} and x.user_id = ${owner.userId} and x.space_group_id is null), -1)
    where organization_id = ${owner.organizationId} and user_id = ${owner.userId} and space_group_id = ${groupId}
      and not (space_id = any(${idArray(keep)}))`);
}

/** Empties a folder before it is deleted: its spaces join the ungrouped ones, at their end. */
export async function emptyFolder(db: Queryable, owner: SidebarOwner, groupId: number): Promise<void> {
  await lockSidebar(db, owner);
  await ungroup(db, owner, groupId, []);
  await compactSidebars(db, owner.organizationId, [owner.userId]);
}

/**
 * Makes a folder hold exactly `spaceIds`, in that order: spaces taken from other folders leave gaps
 * there that are closed, spaces left out go to the end of the ungrouped ones. The caller has checked
 * that it can read every space.
 */
export async function setFolderSpaces(db: Queryable, owner: SidebarOwner, groupId: number, spaceIds: number[]): Promise<void> {
  const { organizationId, userId } = owner;
  const ids = `{${spaceIds.join(',')}}`;
  await lockSidebar(db, owner);
  if (spaceIds.length) {
    // Entries the caller lacks (spaces an organization admin never opened) are created first.
    await db.execute(sql`
      insert into space_user_settings (organization_id, space_id, user_id, "order")
      select ${organizationId}, u.k, ${userId}, b.base + u.n
      from unnest(${ids}::bigint[]) with ordinality as u(k, n),
           (select coalesce(max("order") + 1, 0)::int as base from space_user_settings
            where organization_id = ${organizationId} and user_id = ${userId} and space_group_id is null) b
      on conflict (space_id, user_id) do nothing`);
  }
  await ungroup(db, owner, groupId, spaceIds);
  if (spaceIds.length) {
    await db.execute(sql`
      update space_user_settings t set space_group_id = ${groupId}, "order" = (u.n - 1)::int
      from unnest(${ids}::bigint[]) with ordinality as u(k, n)
      where t.space_id = u.k and t.organization_id = ${organizationId} and t.user_id = ${userId}`);
  }
  await compactSidebars(db, organizationId, [userId]);
}
