import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';

/**
 * Where projects sit in one space's sidebar: a project group, or the ungrouped list (groupId null).
 * A slot mixes projects whose home is the space (position in projects.order) with projects linked
 * into it (position in project_spaces.order), so platform/ordering.ts, which orders one table, is not
 * enough: these helpers lock both kinds, number them as one dense list and write each back.
 */
export interface Slot {
  spaceId: number;
  groupId: number | null;
}

export interface Entry {
  kind: 'home' | 'link';
  projectId: number;
}

const same = (a: Entry, b: Entry) => a.kind === b.kind && a.projectId === b.projectId;

/** The slot's live (not deleted) entries in position order, locked for the rest of the transaction. */
export async function lockSlot(db: Queryable, slot: Slot): Promise<Entry[]> {
  // Row locks alone miss a project inserted by a concurrent transaction (not in this snapshot), so
  // every slot change of a space first takes its space row; NO KEY UPDATE leaves inserts referencing it free.
  await db.execute(sql`select id from spaces where id = ${slot.spaceId} for no key update`);
  const home = await queryRows<{ id: number; ord: number }>(
    db,
    sql`select p.id, p."order" as ord from projects p
        where p.space_id = ${slot.spaceId} and p.project_group_id is not distinct from ${slot.groupId}::bigint and p.deleted_at is null
        order by p.id for update`,
  );
  const linked = await queryRows<{ id: number; ord: number }>(
    db,
    sql`select ps.project_id as id, ps."order" as ord from project_spaces ps join projects p on p.id = ps.project_id
        where ps.space_id = ${slot.spaceId} and ps.project_group_id is not distinct from ${slot.groupId}::bigint and p.deleted_at is null
        order by ps.project_id for update of ps`,
  );
  const all = [
    ...home.map((r) => ({ kind: 'home' as const, projectId: Number(r.id), ord: Number(r.ord) })),
    ...linked.map((r) => ({ kind: 'link' as const, projectId: Number(r.id), ord: Number(r.ord) })),
  ];
  // Ties (never after a write through here) resolve home-first, then by id, so the result is stable.
  all.sort((a, b) => a.ord - b.ord || (a.kind === b.kind ? 0 : a.kind === 'home' ? -1 : 1) || a.projectId - b.projectId);
  return all.map(({ kind, projectId }) => ({ kind, projectId }));
}

/** Writes positions 0..n-1 in the given order, two statements at most (one per kind). */
export async function writeSlot(db: Queryable, slot: Slot, entries: Entry[]): Promise<void> {
  const pick = (kind: Entry['kind']) => {
    const keys: number[] = [];
    const positions: number[] = [];
    entries.forEach((e, i) => {
      if (e.kind === kind) {
        keys.push(e.projectId);
        positions.push(i);
      }
    });
    return { keys: `{${keys.join(',')}}`, positions: `{${positions.join(',')}}`, n: keys.length };
  };
  const home = pick('home');
  if (home.n > 0) {
    await db.execute(sql`
      update projects t set "order" = v.pos, project_group_id = ${slot.groupId}::bigint
      from unnest(${home.keys}::bigint[], ${home.positions}::int[]) as v(k, pos)
      where t.id = v.k and t.space_id = ${slot.spaceId}
        and (t."order" is distinct from v.pos or t.project_group_id is distinct from ${slot.groupId}::bigint)`);
  }
  const link = pick('link');
  if (link.n > 0) {
    await db.execute(sql`
      update project_spaces t set "order" = v.pos, project_group_id = ${slot.groupId}::bigint
      from unnest(${link.keys}::bigint[], ${link.positions}::int[]) as v(k, pos)
      where t.project_id = v.k and t.space_id = ${slot.spaceId}
        and (t."order" is distinct from v.pos or t.project_group_id is distinct from ${slot.groupId}::bigint)`);
  }
}

/**
 * Puts the entry at `position` of the slot (clamped; the end when undefined), renumbering the
 * others. The entry may come from another slot: its group is rewritten to this slot's.
 */
export async function placeInSlot(db: Queryable, slot: Slot, entry: Entry, position?: number): Promise<number> {
  const entries = (await lockSlot(db, slot)).filter((e) => !same(e, entry));
  const at = position === undefined ? entries.length : Math.max(0, Math.min(position, entries.length));
  entries.splice(at, 0, entry);
  await writeSlot(db, slot, entries);
  return at;
}

/** Renumbers the slot densely after an entry left it. */
export async function compactSlot(db: Queryable, slot: Slot): Promise<void> {
  await writeSlot(db, slot, await lockSlot(db, slot));
}

/** Every slot a project occupies: its home and each space it is linked into. */
export async function slotsOf(db: Queryable, projectId: number): Promise<Array<Slot & { kind: Entry['kind'] }>> {
  const rows = await queryRows<{ kind: Entry['kind']; spaceId: number; groupId: number | null }>(
    db,
    sql`select 'home' as kind, space_id as "spaceId", project_group_id as "groupId" from projects where id = ${projectId}
        union all
        select 'link', space_id, project_group_id from project_spaces where project_id = ${projectId}`,
  );
  return rows.map((r) => ({ kind: r.kind, spaceId: Number(r.spaceId), groupId: r.groupId === null ? null : Number(r.groupId) }));
}
