import { sql, type SQL } from 'drizzle-orm';
import { toCsv } from '../../../platform/csv.js';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { authorizeProjectTasks } from '../tasks.policy.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { dateRange } from '../filters.js';
import { EXPORT_FIELDS, type ExportField, type ExportInput } from './export.schemas.js';

const STATUS = ['in work', 'done', 'rejected', 'needs attention'];
const IMPORTANCE: Record<number, string> = { 0: 'low', 1: 'medium', 2: 'high', 3: 'critical' };
// Forms are loaded this many tasks at a time, so a huge project never holds one giant statement.
const BATCH = 1000;

interface Names {
  users: Map<number, string>;
  labels: Map<number, string>;
  columns: Map<number, string>;
}

type Cell = string | number;
const list = (ids: number[], names: Map<number, string>) => ids.map((id) => names.get(id) ?? `#${id}`).join(', ');

/** Each column: its header and how a task fills it. */
const COLUMNS: Record<ExportField, { header: string; cell: (t: TaskDto & { archived: boolean }, n: Names, projectId: number) => Cell }> = {
  id: { header: 'ID', cell: (t) => t.id },
  name: { header: 'Name', cell: (t) => t.name },
  status: { header: 'Status', cell: (t) => STATUS[t.status] ?? String(t.status) },
  column: { header: 'Column', cell: (t, n, p) => n.columns.get(t.stages.find((s) => s.projectId === p)?.stageId ?? 0) ?? '' },
  assignees: { header: 'Assignees', cell: (t, n) => list(t.responsibleUserId, n.users) },
  members: { header: 'Members', cell: (t, n) => list(t.members, n.users) },
  labels: { header: 'Labels', cell: (t, n) => list(t.tags, n.labels) },
  importance: { header: 'Importance', cell: (t) => IMPORTANCE[t.importance] ?? '' },
  dateBegin: { header: 'Start', cell: (t) => t.dateBegin ?? t.dateBeginWithoutTime ?? '' },
  dateEnd: { header: 'Due', cell: (t) => t.dateEnd ?? t.dateEndWithoutTime ?? '' },
  planTime: { header: 'Planned hours', cell: (t) => t.planTime },
  factTime: { header: 'Spent hours', cell: (t) => t.factTime },
  checklist: { header: 'Checklist', cell: (t) => (t.checklist.items === 0 ? '' : `${t.checklist.itemsChecked}/${t.checklist.items}`) },
  subtasks: { header: 'Subtasks', cell: (t) => t.list.length },
  blockReason: { header: 'Block reason', cell: (t) => t.blockReason ?? '' },
  color: { header: 'Colour', cell: (t) => t.color ?? '' },
  creator: { header: 'Creator', cell: (t, n) => (t.creatorId === null ? '' : list([t.creatorId], n.users)) },
  createdAt: { header: 'Created', cell: (t) => t.createdAt },
  updatedAt: { header: 'Updated', cell: (t) => t.updatedAt },
  archived: { header: 'Archived', cell: (t) => (t.archived ? 'yes' : 'no') },
};

/** The project's tasks as CSV (header row first), in board order, archived ones last when asked for. */
export async function exportProjectTasks(ctx: Ctx, projectId: number, input: ExportInput): Promise<string> {
  const { db, actor } = ctx;
  await authorizeProjectTasks(db, actor, projectId);
  const fields = input.fields ?? [...EXPORT_FIELDS];
  const where: SQL[] = [
    ...(input.archived ? [] : [sql`t.archived_at is null`]),
    ...(input.statuses ? [sql`t.status = any(${`{${input.statuses.join(',')}}`}::smallint[])`] : []),
    ...dateRange(sql`t.date_end`, input.dateFrom, input.dateTo),
  ];
  const ids = await queryRows<{ id: number; archived: boolean }>(
    db,
    sql`select t.id, t.archived_at is not null as archived
        from task_stages ts join tasks t on t.id = ts.task_id join stages s on s.id = ts.stage_id
        where ts.project_id = ${projectId} and ts.organization_id = ${actor.organizationId}
          ${where.length > 0 ? sql`and ${sql.join(where, sql` and `)}` : sql``}
        order by t.archived_at is not null, s."order", s.id, ts."order", t.archived_at desc, t.id`,
  );
  const archived = new Set(ids.filter((r) => r.archived).map((r) => Number(r.id)));
  const tasks: Array<TaskDto & { archived: boolean }> = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH).map((r) => Number(r.id));
    const records = new Map((await loadTaskRecords(db, actor.organizationId, batch)).map((r) => [Number(r.id), r]));
    for (const id of batch) {
      const record = records.get(id);
      if (record) tasks.push({ ...presentTask(record), archived: archived.has(id) });
    }
  }
  const names = await namesFor(db, actor.organizationId, projectId, tasks);
  const rows = tasks.map((t) => fields.map((f) => COLUMNS[f].cell(t, names, projectId)));
  return toCsv([fields.map((f) => COLUMNS[f].header), ...rows]);
}

async function namesFor(db: Queryable, organizationId: number, projectId: number, tasks: TaskDto[]): Promise<Names> {
  const userIds = new Set(tasks.flatMap((t) => [...t.responsibleUserId, ...t.members, ...(t.creatorId === null ? [] : [t.creatorId])]));
  const labelIds = new Set(tasks.flatMap((t) => t.tags));
  const [users, labels, columns] = await Promise.all([
    queryRows<{ id: number; name: string }>(db, sql`select id, name from users where id = any(${idArray(userIds)})`),
    queryRows<{ id: number; name: string }>(db, sql`select id, name from labels where organization_id = ${organizationId} and id = any(${idArray(labelIds)})`),
    queryRows<{ id: number; name: string }>(db, sql`select id, name from stages where project_id = ${projectId} and organization_id = ${organizationId}`),
  ]);
  const byId = (rows: Array<{ id: number; name: string }>) => new Map(rows.map((r) => [Number(r.id), r.name]));
  return { users: byId(users), labels: byId(labels), columns: byId(columns) };
}
