import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { atLeast, requireRole, spaceRoleOf, type SpaceRole } from '../../platform/access.js';
import type { Actor } from '../../platform/auth.js';

// Reglament rows of conventions.md's role table: editors write reglaments, their tests and groups;
// readers read published ones, keep their own favourite flag and pass the test.
const RULES = {
  read: 'reader',
  personalize: 'reader', // favourite flag
  pass: 'reader', // acknowledge, submit the test
  readVersions: 'reader',
  readAnswers: 'editor', // which answers are right
  readDrafts: 'editor',
  readHistory: 'editor',
  create: 'editor',
  update: 'editor', // name, content, publish, mandatory, position, files, versions
  delete: 'editor',
  clearPasses: 'editor',
  manageTest: 'editor', // questions, answers, question files
  link: 'editor', // show it in another space (editor in both)
  manageGroups: 'editor',
  setIntro: 'admin', // a space setting
} as const satisfies Record<string, SpaceRole>;

export type ReglamentAction = keyof typeof RULES;

const RANK = sql`case sm.role when 'admin' then 4 when 'editor' then 3 when 'member' then 2 when 'reader' then 1 else 0 end`;
const BY_RANK: Record<number, SpaceRole> = { 1: 'reader', 2: 'member', 3: 'editor', 4: 'admin' };
const RANK_OF: Record<SpaceRole, number> = { reader: 1, member: 2, editor: 3, admin: 4 };
const orgWide = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

export interface ReglamentAccess {
  role: SpaceRole;
  homeSpaceId: number;
  draft: boolean;
}

/**
 * The caller's best role over the spaces showing the reglament, or null when it may not see it:
 * another organization, none of its spaces, or a draft below editor (a draft does not exist for readers).
 */
export async function reglamentAccessOf(db: Queryable, actor: Actor, reglamentId: number): Promise<ReglamentAccess | null> {
  const [row] = await queryRows<{ rank: number | null; spaceId: number; draft: boolean }>(
    db,
    sql`select r.space_id as "spaceId", r.draft,
          (select max(${RANK}) from space_members sm join reglament_spaces rs on rs.space_id = sm.space_id
           where rs.reglament_id = r.id and sm.user_id = ${actor.userId}) as rank
        from reglaments r where r.id = ${reglamentId} and r.organization_id = ${actor.organizationId}`,
  );
  if (!row) return null;
  const rank = orgWide(actor) ? 4 : Number(row.rank ?? 0);
  if (rank === 0) return null;
  const role = BY_RANK[rank]!;
  if (row.draft && !atLeast(role, RULES.readDrafts)) return null;
  return { role, homeSpaceId: Number(row.spaceId), draft: row.draft };
}

/** 404 when the caller cannot see the reglament, 403 when its role is below the action's. */
export async function authorizeReglament(db: Queryable, actor: Actor, reglamentId: number, action: ReglamentAction): Promise<ReglamentAccess> {
  const access = await reglamentAccessOf(db, actor, reglamentId);
  requireRole(access?.role ?? null, RULES[action], 'reglament');
  return access!;
}

/** Actions decided on one space: creating in it, adding a reglament to it, its groups, its intro reglament. */
export async function authorizeReglamentSpace(db: Queryable, actor: Actor, spaceId: number, action: ReglamentAction): Promise<SpaceRole> {
  return requireRole(await spaceRoleOf(db, actor, spaceId), RULES[action], 'space');
}

/** Whether a role may do an action, for decisions that shape a response rather than refuse it. */
export const may = (role: SpaceRole | null, action: ReglamentAction): boolean => atLeast(role, RULES[action]);

/**
 * The spaces where the caller holds at least the action's role (every space of the organization for
 * its owners and admins): one query for a whole list, never one per reglament.
 */
export async function spaceIdsAllowing(db: Queryable, actor: Actor, action: ReglamentAction): Promise<number[]> {
  const least: SpaceRole = RULES[action];
  const rows = orgWide(actor)
    ? await queryRows<{ id: number }>(db, sql`select id from spaces where organization_id = ${actor.organizationId}`)
    : await queryRows<{ id: number }>(
        db,
        sql`select space_id as id from space_members sm
            where sm.user_id = ${actor.userId} and sm.organization_id = ${actor.organizationId}
              and ${RANK} >= ${RANK_OF[least]}`,
      );
  return rows.map((r) => Number(r.id));
}
