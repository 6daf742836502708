import { sql } from 'drizzle-orm';
import { allOf, queryRows, type Queryable } from '../../db/client.js';
import { iso, isoDate } from '../../platform/http.js';
import type { ArchivedTaskDto, ColorTaskDto, TaskDto } from './tasks.schemas.js';

/**
 * The board read path. Everything a task form needs for any number of tasks comes from a fixed set
 * of set-based queries (`task_id = any($ids)`), one per related table, run side by side, so a board
 * of 10,000 tasks costs the same eleven queries as a board of one.
 */

type Stamp = Date | string;
type MaybeStamp = Stamp | null;

interface TaskRow {
  id: number;
  spaceId: number;
  name: string;
  creatorId: number | null;
  color: string | null;
  status: number;
  dateBegin: MaybeStamp;
  dateEnd: MaybeStamp;
  dateBeginWithoutTime: string | null;
  dateEndWithoutTime: string | null;
  dateMove: MaybeStamp;
  dateStatusChanged: MaybeStamp;
  blockReason: string | null;
  importance: number;
  planTime: number;
  hasDescription: boolean;
  archivedAt: MaybeStamp;
  createdAt: Stamp;
  updatedAt: Stamp;
}

/** A task with everything its three response forms are made from. */
export interface TaskRecord extends TaskRow {
  stages: Array<{ stageId: number; order: number | null; pinned: boolean; projectId: number }>;
  tags: number[];
  parentTaskIds: number[];
  responsibleUserId: number[];
  members: number[];
  list: Array<{ id: number; name: string; isChecked: boolean; taskId: number; childTaskId: number | null; order: number }>;
  cover: { id: number; height: number; width: number; pictureUid: string; dominantColor: string; taskId: number } | null;
  inspectors: Array<{ userId: number; status: number; comment: string | null; updatedAt: Stamp }>;
  hasMessages: boolean;
  factTime: number;
}

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function groupBy<R extends { taskId: number }>(rows: R[]): Map<number, R[]> {
  const map = new Map<number, R[]>();
  for (const row of rows) {
    const key = Number(row.taskId);
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    list.push(row);
  }
  return map;
}

type ChildKind = 'stage' | 'assignee' | 'member' | 'label' | 'subtask' | 'parent' | 'cover' | 'inspector' | 'message' | 'fact';

/** Full task records for the given ids, in the order given; ids not in the organization are skipped. */
export async function loadTaskRecords(db: Queryable, organizationId: number, taskIds: number[]): Promise<TaskRecord[]> {
  if (taskIds.length === 0) return [];
  // One array parameter for every query: the statement text stays the same whatever the count.
  const ids = sql`${`{${taskIds.join(',')}}`}::bigint[]`;
  const [tasks, children] = await allOf(db, [
    () =>
      queryRows<TaskRow>(
        db,
        sql`select id, space_id as "spaceId", name, creator_id as "creatorId", color, status, date_begin as "dateBegin", date_end as "dateEnd",
              date_begin_without_time as "dateBeginWithoutTime", date_end_without_time as "dateEndWithoutTime", date_move as "dateMove",
              date_status_changed as "dateStatusChanged", block_reason as "blockReason", importance, plan_time as "planTime",
              coalesce(description, '') <> '' as "hasDescription", archived_at as "archivedAt", created_at as "createdAt", updated_at as "updatedAt"
            from tasks where id = any(${ids}) and organization_id = ${organizationId}`,
      ),
    // Everything hanging off the tasks in ONE statement (a statement costs far more than its rows):
    // each part tags its rows with a kind and keeps its own order in `seq`.
    () =>
      queryRows<{ k: ChildKind; v: Record<string, unknown> }>(
        db,
        sql`select k, v from (
          select 'stage' as k, row_number() over (order by ts.task_id, ts.pinned desc, ts.project_id) as seq,
                 json_build_object('taskId', ts.task_id, 'stageId', ts.stage_id, 'order', ts."order", 'pinned', ts.pinned, 'projectId', ts.project_id) as v
            from task_stages ts where ts.task_id = any(${ids})
          union all
          select 'assignee', row_number() over (order by task_id, created_at, user_id), json_build_object('taskId', task_id, 'userId', user_id)
            from task_assignees where task_id = any(${ids})
          union all
          select 'member', row_number() over (order by task_id, created_at, user_id), json_build_object('taskId', task_id, 'userId', user_id)
            from task_members where task_id = any(${ids})
          union all
          select 'label', row_number() over (order by task_id, created_at, label_id), json_build_object('taskId', task_id, 'labelId', label_id)
            from task_labels where task_id = any(${ids})
          union all
          select 'subtask', row_number() over (order by task_id, "order", id),
                 json_build_object('id', id, 'name', name, 'isChecked', is_checked, 'taskId', task_id, 'childTaskId', child_task_id, 'order', "order")
            from subtasks where task_id = any(${ids})
          union all
          select 'parent', row_number() over (order by child_task_id, task_id), json_build_object('taskId', child_task_id, 'parentId', task_id)
            from subtasks where child_task_id = any(${ids})
          union all
          select 'cover', row_number() over (order by task_id),
                 json_build_object('id', id, 'height', height, 'width', width, 'pictureUid', picture_uid, 'dominantColor', dominant_color, 'taskId', task_id)
            from task_covers where task_id = any(${ids})
          union all
          select 'inspector', row_number() over (order by task_id, created_at, id),
                 json_build_object('taskId', task_id, 'userId', user_id, 'status', status, 'comment', comment, 'updatedAt', updated_at)
            from task_inspectors where task_id = any(${ids})
          union all
          -- Existence only: one index probe per task instead of counting its messages.
          select 'message', row_number() over (order by u.id), json_build_object('taskId', u.id)
            from unnest(${ids}) as u(id) where exists (select 1 from task_messages m where m.task_id = u.id)
          union all
          select 'fact', row_number() over (order by task_id), json_build_object('taskId', task_id, 'hours', sum(hours)::float8)
            from time_records where task_id = any(${ids}) group by task_id
        ) parts order by k, seq`,
      ),
  ] as const);
  const part = <T>(kind: ChildKind) => children.filter((c) => c.k === kind).map((c) => c.v as T);
  const stages = part<{ taskId: number; stageId: number; order: number | null; pinned: boolean; projectId: number }>('stage');
  const assignees = part<{ taskId: number; userId: number }>('assignee');
  const members = part<{ taskId: number; userId: number }>('member');
  const labels = part<{ taskId: number; labelId: number }>('label');
  const subtasks = part<TaskRecord['list'][number]>('subtask');
  const parents = part<{ taskId: number; parentId: number }>('parent');
  const covers = part<NonNullable<TaskRecord['cover']>>('cover');
  const inspectors = part<TaskRecord['inspectors'][number] & { taskId: number }>('inspector');
  const messages = part<{ taskId: number }>('message');
  const fact = part<{ taskId: number; hours: number }>('fact');

  const stagesOf = groupBy(stages);
  const assigneesOf = groupBy(assignees);
  const membersOf = groupBy(members);
  const labelsOf = groupBy(labels);
  const subtasksOf = groupBy(subtasks);
  const parentsOf = groupBy(parents);
  const inspectorsOf = groupBy(inspectors);
  const coverOf = new Map(covers.map((c) => [Number(c.taskId), c]));
  const withMessages = new Set(messages.map((m) => Number(m.taskId)));
  const factOf = new Map(fact.map((f) => [Number(f.taskId), Number(f.hours)]));
  const byId = new Map(tasks.map((t) => [Number(t.id), t]));

  const records: TaskRecord[] = [];
  for (const id of taskIds) {
    const t = byId.get(id);
    if (!t) continue;
    const cover = coverOf.get(id);
    records.push({
      ...t,
      id,
      spaceId: num(t.spaceId),
      creatorId: numOrNull(t.creatorId),
      status: num(t.status),
      importance: num(t.importance),
      planTime: num(t.planTime),
      stages: (stagesOf.get(id) ?? []).map((s) => ({ stageId: num(s.stageId), order: numOrNull(s.order), pinned: s.pinned, projectId: num(s.projectId) })),
      tags: (labelsOf.get(id) ?? []).map((l) => num(l.labelId)),
      parentTaskIds: (parentsOf.get(id) ?? []).map((p) => num(p.parentId)),
      responsibleUserId: (assigneesOf.get(id) ?? []).map((a) => num(a.userId)),
      members: (membersOf.get(id) ?? []).map((m) => num(m.userId)),
      list: (subtasksOf.get(id) ?? []).map((s) => ({
        id: num(s.id),
        name: s.name,
        isChecked: s.isChecked,
        taskId: id,
        childTaskId: numOrNull(s.childTaskId),
        order: num(s.order),
      })),
      cover: cover
        ? { id: num(cover.id), height: num(cover.height), width: num(cover.width), pictureUid: cover.pictureUid, dominantColor: cover.dominantColor, taskId: id }
        : null,
      inspectors: (inspectorsOf.get(id) ?? []).map((i) => ({ userId: num(i.userId), status: num(i.status), comment: i.comment, updatedAt: i.updatedAt })),
      hasMessages: withMessages.has(id),
      factTime: factOf.get(id) ?? 0,
    });
  }
  return records;
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
    list: r.list.map((s) => ({ ...s, order: String(s.order) })),
    checklist: { items: r.list.length, itemsChecked: r.list.filter((s) => s.isChecked).length },
    cover: r.cover,
    planTime: r.planTime,
    factTime: r.factTime,
    inspectors: r.inspectors.map((i) => ({ ...i, updatedAt: iso(i.updatedAt)! })),
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
