import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { authorizeProjectTasks, authorizeSpaceTasks } from '../tasks.policy.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import type { TaskListQuery } from './lists.schemas.js';
import { assignedTo, dateRange, statusIn } from '../filters.js';

/** board: tasks on the board; archived: the archive; closed: done and rejected tasks still on the board. */
export type TaskView = 'board' | 'archived' | 'closed';

export type TaskScope = { projectId: number } | { spaceId: number };

// The date each view filters on: when a board task is due, when it was archived, when it closed.
const DATE_COLUMN: Record<TaskView, SQL> = { board: sql`t.date_end`, archived: sql`t.archived_at`, closed: sql`t.date_status_changed` };

function filters(view: TaskView, q: TaskListQuery): SQL[] {
  return [
    view === 'archived' ? sql`t.archived_at is not null` : sql`t.archived_at is null`,
    ...statusIn(q.statuses ?? (view === 'closed' ? '1,2' : undefined)),
    ...(q.responsibleId !== undefined ? [assignedTo(q.responsibleId)] : []),
    ...dateRange(DATE_COLUMN[view], q.dateFrom, q.dateTo),
  ];
}

const ORDER: Record<TaskView, SQL> = {
  board: sql`s."order", s.id, ts."order", t.id`,
  archived: sql`t.archived_at desc, t.id desc`,
  closed: sql`t.date_status_changed desc nulls last, t.id desc`,
};

/**
 * One page of a task list: one query picks the ids (and the total), the presenter loads the forms
 * with one more.
 */
export async function listTasks(ctx: Ctx, scope: TaskScope, view: TaskView, q: TaskListQuery): Promise<{ items: TaskDto[]; total: number }> {
  const { db, actor } = ctx;
  if ('projectId' in scope) await authorizeProjectTasks(db, actor, scope.projectId);
  else await authorizeSpaceTasks(db, actor, scope.spaceId);

  const where = filters(view, q);
  const limit = q.limit ?? 1000;
  const offset = q.offset ?? 0;
  let from: SQL;
  let order: SQL;
  if ('projectId' in scope) {
    if (q.stageId !== undefined) where.push(sql`ts.stage_id = ${q.stageId}`);
    from = sql`from task_stages ts join tasks t on t.id = ts.task_id join stages s on s.id = ts.stage_id
               where ts.project_id = ${scope.projectId} and ts.organization_id = ${actor.organizationId} and ${sql.join(where, sql` and `)}`;
    order = ORDER[view];
  } else {
    // A task in two projects of the space is listed once.
    from = sql`from tasks t
               where t.organization_id = ${actor.organizationId} and t.id in (
                 select ts.task_id from task_stages ts join projects p on p.id = ts.project_id and p.deleted_at is null
                 where p.organization_id = ${actor.organizationId}
                   and (p.space_id = ${scope.spaceId} or p.id in (select ps.project_id from project_spaces ps where ps.space_id = ${scope.spaceId})))
                 and ${sql.join(where, sql` and `)}`;
    order = view === 'board' ? sql`t.id` : ORDER[view];
  }
  // Prepared: the text varies only with which filters are set, a handful of shapes.
  const rows = await queryRows<{ id: number; total: number }>(
    db,
    sql`select t.id, count(*) over ()::int as total ${from} order by ${order} limit ${limit} offset ${offset}`,
    { prepare: 'task-list' },
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  // Past the end no row carries the total; count apart so X-Total-Count stays true.
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(db, sql`select count(*)::int as n ${from}`))[0]?.n ?? 0);
  const records = await loadTaskRecords(db, actor.organizationId, rows.map((r) => Number(r.id)));
  return { items: records.map(presentTask), total };
}
