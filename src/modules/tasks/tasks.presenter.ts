import { sql, type SQL } from 'drizzle-orm';
import { idArray, idIn, queryRows, type Queryable } from '../../db/client.js';
import { iso, isoDate } from '../../platform/http.js';
import type { ArchivedTaskDto, ColorTaskDto, TaskDto } from './tasks.schemas.js';
import { denseOrderOf } from './board/ranks.js';
import { loadBoardRecords, num, numOrNull, type TaskRecord, type TaskRow } from './task-records.js';

export type { TaskRecord };

/**
 * The board read path. Everything a task form needs for any number of tasks comes from ONE
 * statement (`id = any($ids)`: for a few tasks the children aggregated per task, for a board one
 * array per child table, task-records.ts), so a board of 10,000 tasks costs the same single query
 * as a task of its own.
 */

/*
 * A placement's `order` is its dense position in the column, computed here from the stored ranks
 * (tasks/board/ranks.ts). For one task or a few (a search page, a drill-down): the tasks before each
 * placement, counted on the (stage_id, order) index, which reads only the entries before it; ranking
 * whole columns instead read every task of each column the few sit in (a 20-task page over 20
 * columns of a 100,000-task organization ranked 20,000 placements). For many (a board,
 * task-records.ts): the columns they sit in ranked once, since counting per task would read a
 * column once per task in it.
 */
const FEW = 50;
const stageJson = (order: SQL) =>
  sql`json_agg(json_build_object('stageId', ts.stage_id, 'order', ${order}, 'pinned', ts.pinned, 'projectId', ts.project_id)
               order by ts.pinned desc, ts.project_id)`;

const stagesOfOne = sql`(select ${stageJson(sql`case when ts."order" is null then null else ${denseOrderOf('ts')} end`)}
       from task_stages ts where ts.task_id = t.id)`;

/** Full task records for the given ids, in the order given; ids not in the organization are skipped. */
export async function loadTaskRecords(
  db: Queryable,
  organizationId: number,
  taskIds: number[],
  options: {
    /** An extra column `rank` (the caller's role on the task, from the tasks policy). */
    rank?: SQL;
  } = {},
): Promise<TaskRecord[]> {
  if (taskIds.length === 0) return [];
  if (taskIds.length > FEW && !options.rank) return loadBoardRecords(db, organizationId, taskIds);
  // One task, a few, or (rank asked) any number: the task's children by per-task subqueries.
  // One array parameter (one id by `=`, see idIn): the statement text stays the same whatever the
  // count, so it is prepared once per connection. Each child table is aggregated per task by an
  // index probe on task_id.
  const single = taskIds.length === 1;
  const one = idIn(sql`t.id`, taskIds);
  const rows = await queryRows<LoadedRow>(
    db,
    sql`select t.id, t.space_id as "spaceId", t.name, t.creator_id as "creatorId", t.color, t.status, t.date_begin as "dateBegin",
          t.date_end as "dateEnd", t.date_begin_without_time as "dateBeginWithoutTime", t.date_end_without_time as "dateEndWithoutTime",
          t.date_move as "dateMove", t.date_status_changed as "dateStatusChanged", t.block_reason as "blockReason", t.importance,
          t.plan_time as "planTime", coalesce(t.description, '') <> '' as "hasDescription", t.archived_at as "archivedAt",
          t.created_at as "createdAt", t.updated_at as "updatedAt",
          ${stagesOfOne} as stages,
          (select json_agg(a.user_id order by a.created_at, a.user_id) from task_assignees a where a.task_id = t.id) as assignees,
          (select json_agg(m.user_id order by m.created_at, m.user_id) from task_members m where m.task_id = t.id) as members,
          (select json_agg(l.label_id order by l.created_at, l.label_id) from task_labels l where l.task_id = t.id) as labels,
          (select json_agg(json_build_object('id', s.id, 'name', s.name, 'isChecked', s.is_checked, 'childTaskId', s.child_task_id, 'order', s."order")
                           order by s."order", s.id)
             from subtasks s where s.task_id = t.id) as subtasks,
          (select json_agg(s.task_id order by s.task_id) from subtasks s where s.child_task_id = t.id) as parents,
          (select json_build_object('id', c.id, 'height', c.height, 'width', c.width, 'pictureUid', c.picture_uid, 'dominantColor', c.dominant_color)
             from task_covers c where c.task_id = t.id limit 1) as cover,
          (select json_agg(json_build_object('userId', i.user_id, 'status', i.status, 'comment', i.comment, 'updatedAt', i.updated_at)
                           order by i.created_at, i.id)
             from task_inspectors i where i.task_id = t.id) as inspectors,
          -- Existence only: one index probe per task instead of counting its messages.
          exists (select 1 from task_messages m where m.task_id = t.id) as "hasMessages",
          (select sum(r.hours)::float8 from time_records r where r.task_id = t.id) as "factTime"
          ${options.rank ? sql`, ${options.rank} as rank` : sql``}
        from tasks t where ${one} and t.organization_id = ${organizationId}`,
    { prepare: single ? 'task-record' : 'task-records' },
  );
  const byId = new Map(rows.map((t) => [Number(t.id), t]));
  const records: TaskRecord[] = [];
  for (const id of taskIds) {
    const t = byId.get(id);
    if (!t) continue;
    // Field by field, not spread: this loop runs for every task of a board.
    records.push({
      id,
      spaceId: num(t.spaceId),
      name: t.name,
      creatorId: numOrNull(t.creatorId),
      color: t.color,
      status: num(t.status),
      dateBegin: t.dateBegin,
      dateEnd: t.dateEnd,
      dateBeginWithoutTime: t.dateBeginWithoutTime,
      dateEndWithoutTime: t.dateEndWithoutTime,
      dateMove: t.dateMove,
      dateStatusChanged: t.dateStatusChanged,
      blockReason: t.blockReason,
      importance: num(t.importance),
      planTime: num(t.planTime),
      hasDescription: t.hasDescription,
      archivedAt: t.archivedAt,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      stages: (t.stages ?? []).map((s) => ({ stageId: num(s.stageId), order: numOrNull(s.order), pinned: s.pinned, projectId: num(s.projectId) })),
      tags: (t.labels ?? []).map(num),
      parentTaskIds: (t.parents ?? []).map(num),
      responsibleUserId: (t.assignees ?? []).map(num),
      members: (t.members ?? []).map(num),
      list: (t.subtasks ?? []).map((s) => ({ id: num(s.id), name: s.name, isChecked: s.isChecked, taskId: id, childTaskId: numOrNull(s.childTaskId), order: num(s.order) })),
      cover: t.cover
        ? { id: num(t.cover.id), height: num(t.cover.height), width: num(t.cover.width), pictureUid: t.cover.pictureUid, dominantColor: t.cover.dominantColor, taskId: id }
        : null,
      inspectors: (t.inspectors ?? []).map((i) => ({ userId: num(i.userId), status: num(i.status), comment: i.comment, updatedAt: i.updatedAt })),
      hasMessages: t.hasMessages,
      factTime: t.factTime === null ? 0 : Number(t.factTime),
      ...(options.rank ? { rank: t.rank === null || t.rank === undefined ? null : Number(t.rank) } : {}),
    });
  }
  return records;
}

/** One row of loadTaskRecords' statement: the task's columns and its children as JSON (null when none). */
interface LoadedRow extends TaskRow {
  stages: Array<{ stageId: number; order: number | null; pinned: boolean; projectId: number }> | null;
  assignees: number[] | null;
  members: number[] | null;
  labels: number[] | null;
  subtasks: Array<{ id: number; name: string; isChecked: boolean; childTaskId: number | null; order: number }> | null;
  parents: number[] | null;
  cover: Omit<NonNullable<TaskRecord['cover']>, 'taskId'> | null;
  inspectors: TaskRecord['inspectors'] | null;
  hasMessages: boolean;
  factTime: number | null;
  rank?: number | null;
}

export function presentTask(r: TaskRecord): TaskDto {
  return {
    id: r.id,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    name: r.name,
    creatorId: r.creatorId,
    color: r.color,
    status: r.status,
    dateBegin: iso(r.dateBegin),
    dateEnd: iso(r.dateEnd),
    dateBeginWithoutTime: isoDate(r.dateBeginWithoutTime),
    dateEndWithoutTime: isoDate(r.dateEndWithoutTime),
    dateMove: iso(r.dateMove),
    dateStatusChanged: iso(r.dateStatusChanged),
    blockReason: r.blockReason,
    importance: r.importance,
    stages: r.stages.map((s) => ({ stageId: s.stageId, order: s.order === null ? null : String(s.order), pinned: s.pinned, projectId: s.projectId })),
    tags: r.tags,
    parentTaskIds: r.parentTaskIds,
    responsibleUserId: r.responsibleUserId,
    hasMessages: r.hasMessages,
    hasDescription: r.hasDescription,
    members: r.members,
    list: r.list.map((s) => ({ id: s.id, name: s.name, isChecked: s.isChecked, taskId: s.taskId, childTaskId: s.childTaskId, order: String(s.order) })),
    checklist: { items: r.list.length, itemsChecked: r.list.filter((s) => s.isChecked).length },
    cover: r.cover,
    planTime: r.planTime,
    factTime: r.factTime,
    inspectors: r.inspectors.map((i) => ({ userId: i.userId, status: i.status, comment: i.comment, updatedAt: iso(i.updatedAt)! })),
  };
}

export function presentArchivedTask(r: TaskRecord): ArchivedTaskDto {
  return {
    id: r.id,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    name: r.name,
    color: r.color,
    stages: r.stages.map((s) => String(s.stageId)),
    creatorId: r.creatorId,
    tags: r.tags.map(String),
    responsibleUserId: r.responsibleUserId.map(String),
    status: r.status,
    dateEnd: iso(r.dateEnd),
    dateBegin: iso(r.dateBegin),
    dateStatusChanged: iso(r.dateStatusChanged),
    blockReason: r.blockReason,
    dateMove: iso(r.dateMove),
    hasMessages: r.hasMessages,
    hasDescription: r.hasDescription,
    members: r.members.map(String),
    importance: r.importance,
  };
}

/** The colour form is flat: the home (pinned) column gives stageId and order. */
export function presentColorTask(r: TaskRecord): ColorTaskDto {
  const home = r.stages.find((s) => s.pinned) ?? r.stages[0]!;
  return {
    id: r.id,
    color: r.color ?? '',
    creatorId: r.creatorId,
    dateBegin: iso(r.dateBegin),
    dateStatusChanged: iso(r.dateStatusChanged),
    blockReason: r.blockReason,
    dateMove: iso(r.dateMove),
    members: r.members,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    order: String(home.order ?? 0),
    name: r.name,
    hasDescription: r.hasDescription,
    hasMessages: r.hasMessages,
    responsibleUserId: r.responsibleUserId,
    spaceId: r.spaceId,
    stageId: home.stageId,
    status: r.status,
    dateEnd: iso(r.dateEnd),
    tags: r.tags,
  };
}
