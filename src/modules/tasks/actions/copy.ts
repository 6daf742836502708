import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { assignableCondition } from './actions.policy.js';

/**
 * Set-based copying of tasks, shared by duplicate task and duplicate project: a fixed number of
 * statements for any number of tasks. What a copy takes (routes.md row 2): name, description,
 * colour, dates, importance, planned time, labels, assignees, members and optionally subtasks and
 * chat messages. What it does not: status (a copy is new work: 0), cover, inspectors, time records
 * and history; the caller is its creator. People who could not be assigned on the copy's project
 * (not in a space holding it) are left out rather than failing the copy.
 */

export interface CopyPlan {
  sourceId: number;
  projectId: number;
  spaceId: number;
  stageId: number;
  /** Position in the column; null leaves the row unplaced for the caller to place. */
  order: number | null;
}

export interface CopyOptions {
  subtasks: boolean;
  messages: boolean;
}

const nullableInts = (list: Array<number | null>) => sql`${`{${list.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`}::int[]`;

/** Takes `n` values of a table's identity sequence, ascending, so copies can be inserted with known ids. */
export async function allocateIds(db: Queryable, table: 'tasks' | 'stages', n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await queryRows<{ id: number }>(db, sql`select nextval(pg_get_serial_sequence(${table}, 'id')) as id from generate_series(1, ${n})`);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Copies the planned tasks; answers the new ids in plan order. */
export async function copyTasks(db: Queryable, actor: Actor, plans: CopyPlan[], options: CopyOptions): Promise<number[]> {
  if (plans.length === 0) return [];
  const newIds = await allocateIds(db, 'tasks', plans.length);
  const org = actor.organizationId;
  const map = sql`unnest(${idArray(newIds)}, ${idArray(plans.map((p) => p.sourceId))}, ${idArray(plans.map((p) => p.projectId))}, ${idArray(plans.map((p) => p.spaceId))},
    ${idArray(plans.map((p) => p.stageId))}, ${nullableInts(plans.map((p) => p.order))}) as u(new_id, source_id, project_id, space_id, stage_id, position)`;

  await db.execute(
    sql`insert into tasks (id, organization_id, space_id, project_id, name, description, creator_id, color, date_begin, date_end,
          date_begin_without_time, date_end_without_time, importance, plan_time)
        overriding system value
        select u.new_id, ${org}, u.space_id, u.project_id, t.name, t.description, ${actor.userId}, t.color, t.date_begin, t.date_end,
          t.date_begin_without_time, t.date_end_without_time, t.importance, t.plan_time
        from ${map} join tasks t on t.id = u.source_id and t.organization_id = ${org}
        order by u.new_id`,
  );
  await db.execute(
    sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
        select ${org}, u.new_id, u.project_id, u.stage_id, u.position, true from ${map}`,
  );
  await db.execute(
    sql`insert into task_labels (organization_id, task_id, label_id)
        select ${org}, u.new_id, l.label_id from ${map} join task_labels l on l.task_id = u.source_id order by u.new_id, l.created_at, l.label_id`,
  );
  for (const table of ['task_assignees', 'task_members'] as const) {
    await db.execute(
      sql`insert into ${sql.identifier(table)} (organization_id, task_id, user_id)
          select ${org}, u.new_id, x.user_id from ${map} join ${sql.identifier(table)} x on x.task_id = u.source_id
          where ${assignableCondition(actor, sql`x.user_id`, sql`u.project_id`)}
          order by u.new_id, x.created_at, x.user_id`,
    );
  }
  if (options.subtasks) {
    // A subtask shown on the board links a child task; the copy gets the plain subtask.
    await db.execute(
      sql`insert into subtasks (organization_id, task_id, name, is_checked, "order")
          select ${org}, u.new_id, s.name, s.is_checked, s."order" from ${map} join subtasks s on s.task_id = u.source_id order by u.new_id, s."order", s.id`,
    );
  }
  if (options.messages) {
    // The texts with their authors and times; replies lose their target, which stays with the original.
    await db.execute(
      sql`insert into task_messages (organization_id, task_id, author_id, text, pinned, edited_at, created_at, updated_at)
          select ${org}, u.new_id, m.author_id, m.text, m.pinned, m.edited_at, m.created_at, m.updated_at
          from ${map} join task_messages m on m.task_id = u.source_id order by u.new_id, m.id`,
    );
  }
  return newIds;
}
