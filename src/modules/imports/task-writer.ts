import { sql } from 'drizzle-orm';
import type { Ctx } from '../../platform/context.js';
import { allocateIds } from '../tasks/actions/copy.js';
import { lockColumns, placeInColumn } from '../tasks/board/columns.js';
import { HISTORY, recordHistory } from '../tasks/history/history.service.js';

/** A task as an import creates it: every reference already resolved to an id of ours. */
export interface NewTask {
  stageId: number;
  name: string;
  description: string | null;
  color: string | null;
  status: number;
  importance: number;
  dateBegin: string | null;
  dateEnd: string | null;
  dateBeginWithoutTime: string | null;
  dateEndWithoutTime: string | null;
  planTime: number;
  blockReason: string | null;
  archived: boolean;
  labelIds: number[];
  assigneeIds: number[];
  memberIds: number[];
  subtasks: Array<{ name: string; checked: boolean }>;
  messages: Array<{ authorId: number | null; text: string; at: string }>;
}

const recordset = (rows: object[]) => sql`${JSON.stringify(rows)}::jsonb`;

/**
 * Creates a batch of tasks with set-based statements, the way a template is applied: tasks, their
 * places (appended to their columns in the order given; archived ones without a place), labels,
 * people, subtasks, chat messages with their original times, and one history record each (which
 * announces task.created). Answers the new ids in the order given.
 */
export async function writeTasks(ctx: Ctx, project: { id: number; spaceId: number; name: string }, tasks: NewTask[], state: string): Promise<number[]> {
  if (tasks.length === 0) return [];
  const { db, actor } = ctx;
  const org = actor.organizationId;
  const ids = await allocateIds(db, 'tasks', tasks.length);
  const rows = tasks.map((t, i) => ({ ...t, id: ids[i]! }));
  await db.execute(
    sql`insert into tasks (id, organization_id, space_id, project_id, name, description, creator_id, color, status, importance, date_begin, date_end,
          date_begin_without_time, date_end_without_time, plan_time, block_reason, archived_at, date_status_changed)
        overriding system value
        select r.id, ${org}, ${project.spaceId}, ${project.id}, r.name, r.description, ${actor.userId}, r.color, r.status, r.importance, r.date_begin, r.date_end,
          r.date_begin_without_time, r.date_end_without_time, r.plan_time, r.block_reason,
          case when r.archived then now() end, case when r.status <> 0 then now() end
        from jsonb_to_recordset(${recordset(
          rows.map((r) => ({
            id: r.id, name: r.name, description: r.description, color: r.color, status: r.status, importance: r.importance, date_begin: r.dateBegin, date_end: r.dateEnd,
            date_begin_without_time: r.dateBeginWithoutTime, date_end_without_time: r.dateEndWithoutTime, plan_time: r.planTime, block_reason: r.blockReason, archived: r.archived,
          })),
        )}) as r(id bigint, name text, description text, color text, status smallint, importance smallint, date_begin timestamptz, date_end timestamptz,
          date_begin_without_time date, date_end_without_time date, plan_time double precision, block_reason text, archived boolean)
        order by r.id`,
  );
  await db.execute(
    sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
        select ${org}, r.id, ${project.id}, r.stage_id, null, true
        from jsonb_to_recordset(${recordset(rows.map((r) => ({ id: r.id, stage_id: r.stageId })))}) as r(id bigint, stage_id bigint)`,
  );
  const perColumn = new Map<number, number[]>();
  for (const r of rows) {
    if (r.archived) continue;
    const column = perColumn.get(r.stageId) ?? [];
    column.push(r.id);
    perColumn.set(r.stageId, column);
  }
  // Placement is serialized by the column's lock, which a user's task creation there takes too.
  await lockColumns(db, org, [...perColumn.keys()]);
  for (const [stageId, taskIds] of perColumn) await placeInColumn(db, stageId, taskIds, undefined);

  const pairs = (pick: (r: (typeof rows)[number]) => number[]) => rows.flatMap((r) => [...new Set(pick(r))].map((x) => ({ t: r.id, x })));
  const links = [
    { table: 'task_labels', column: 'label_id', rows: pairs((r) => r.labelIds) },
    { table: 'task_assignees', column: 'user_id', rows: pairs((r) => r.assigneeIds) },
    { table: 'task_members', column: 'user_id', rows: pairs((r) => r.memberIds) },
  ];
  for (const link of links.filter((l) => l.rows.length > 0)) {
    await db.execute(
      sql`insert into ${sql.identifier(link.table)} (organization_id, task_id, ${sql.identifier(link.column)})
          select ${org}, p.t, p.x from jsonb_to_recordset(${recordset(link.rows)}) as p(t bigint, x bigint) on conflict do nothing`,
    );
  }
  const subtasks = rows.flatMap((r) => r.subtasks.map((s, order) => ({ t: r.id, name: s.name, checked: s.checked, order })));
  if (subtasks.length > 0) {
    await db.execute(
      sql`insert into subtasks (organization_id, task_id, name, is_checked, "order")
          select ${org}, s.t, s.name, s.checked, s.order from jsonb_to_recordset(${recordset(subtasks)}) as s(t bigint, name text, checked boolean, "order" int)`,
    );
  }
  const messages = rows.flatMap((r) => r.messages.map((m, n) => ({ t: r.id, author: m.authorId, text: m.text, at: m.at, n })));
  if (messages.length > 0) {
    // Inserted oldest first, so message ids follow the conversation as it happened.
    await db.execute(
      sql`insert into task_messages (organization_id, task_id, author_id, text, created_at, updated_at)
          select ${org}, m.t, m.author, m.text, m.at, m.at from jsonb_to_recordset(${recordset(messages)}) as m(t bigint, author bigint, text text, at timestamptz, n int)
          order by m.t, m.n`,
    );
  }
  await recordHistory(db, actor, rows.map((r) => ({ taskId: r.id, type: HISTORY.created, state, projectName: project.name, taskName: r.name })));
  return ids;
}
