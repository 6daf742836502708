import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { notFound } from '../../platform/errors.js';
import type { ReglamentRecord } from './reglaments.presenter.js';

export const idArray = (ids: number[]) => `{${ids.join(',')}}`;

export interface ReglamentFilter {
  ids?: number[];
  /** Present each reglament's group and position in this space, and list only those shown there. */
  spaceId?: number;
  /** Only reglaments shown in one of these spaces. */
  inSpaces?: number[];
  /** Drafts only when shown in one of these spaces (the caller's editor spaces); omitted: no restriction. */
  draftsIn?: number[];
  draft?: boolean;
  /** A further condition on `r` (search, the mandatory banner). */
  where?: SQL;
  /** Sort before the default order (search ranking). */
  orderBy?: SQL;
  limit?: number;
  offset?: number;
}

/**
 * Reglaments in every form's fields (list, create, full) with the caller's flags: one statement for
 * any number of them. Without `spaceId` the placement shown is the home space's.
 */
export async function queryReglaments(db: Queryable, actor: Actor, f: ReglamentFilter): Promise<{ items: ReglamentRecord[]; total: number }> {
  const where: SQL[] = [sql`r.organization_id = ${actor.organizationId}`];
  if (f.ids) where.push(sql`r.id = any(${idArray(f.ids)}::bigint[])`);
  if (f.inSpaces) where.push(sql`exists (select 1 from reglament_spaces v where v.reglament_id = r.id and v.space_id = any(${idArray(f.inSpaces)}::bigint[]))`);
  if (f.draftsIn) {
    where.push(sql`(not r.draft or exists (select 1 from reglament_spaces e where e.reglament_id = r.id and e.space_id = any(${idArray(f.draftsIn)}::bigint[])))`);
  }
  if (f.draft !== undefined) where.push(sql`r.draft = ${f.draft}`);
  if (f.where) where.push(f.where);
  const rows = await queryRows<ReglamentRecord & { total: number }>(
    db,
    sql`select r.id, r.name, r.draft, r.content, r.version, r.mandatory,
          r.created_at as "createdAt", r.updated_at as "updatedAt", r.creator_id as "creatorId",
          here.reglament_group_id as "reglamentColumnId", here."order",
          (select json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'avatarKey', af.key)
             from users u left join files af on af.id = u.avatar_file_id where u.id = r.creator_id) as creator,
          (select json_agg(json_build_object('createdAt', p.created_at, 'reglamentId', p.reglament_id, 'userId', p.user_id)
                           order by p.created_at, p.user_id)
             from reglament_passes p where p.reglament_id = r.id) as "usersPassed",
          exists (select 1 from spaces s where s.intro_reglament_id = r.id and s.organization_id = r.organization_id) as intro,
          exists (select 1 from reglament_favorites fv where fv.reglament_id = r.id and fv.user_id = ${actor.userId}) as favorite,
          (select json_agg(rs.space_id order by rs.space_id <> r.space_id, rs.space_id)
             from reglament_spaces rs where rs.reglament_id = r.id) as "spaceIds",
          (select count(*)::int from reglament_questions q where q.reglament_id = r.id) as "questionsCount",
          exists (select 1 from reglament_passes me where me.reglament_id = r.id and me.user_id = ${actor.userId}) as "passedByMe",
          count(*) over ()::int as total
        from reglaments r
        join reglament_spaces here on here.reglament_id = r.id and here.space_id = ${f.spaceId === undefined ? sql`r.space_id` : sql`${f.spaceId}::bigint`}
        join reglament_groups g on g.id = here.reglament_group_id
        where ${sql.join(where, sql` and `)}
        order by ${f.orderBy ? sql`${f.orderBy},` : sql``} g.space_id, g."order", g.id, here."order", r.id
        limit ${f.limit ?? 500} offset ${f.offset ?? 0}`,
  );
  return { items: rows, total: Number(rows[0]?.total ?? 0) };
}

/** One reglament the caller was already authorized for, placed in its home space. */
export async function loadReglament(db: Queryable, actor: Actor, reglamentId: number): Promise<ReglamentRecord> {
  const { items } = await queryReglaments(db, actor, { ids: [reglamentId] });
  if (!items[0]) throw notFound('reglament');
  return items[0];
}
