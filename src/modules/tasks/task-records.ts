import { sql } from 'drizzle-orm';
import { allOf, idArray, queryRows, type Queryable } from '../../db/client.js';

type Stamp = Date | string;
type MaybeStamp = Stamp | null;

/** A task's own columns, as every task form reads them. */
export interface TaskRow {
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
  /** Only when asked for: the caller's rank on the task (see tasks.policy taskRankSql). */
  rank?: number | null;
}

/*
 * A task just inserted, as its create statement returns it (snake_case, so that the columns sit
 * beside the history row's camelCase ones): a create's answer is built from what it wrote.
 */
const CREATED = ['space_id', 'name', 'creator_id', 'color', 'status', 'date_begin', 'date_end', 'date_begin_without_time', 'date_end_without_time',
  'date_move', 'date_status_changed', 'block_reason', 'importance', 'plan_time', 'archived_at', 'created_at', 'updated_at'] as const;
/** What the insert into tasks returns. */
export const CREATED_RETURNING = sql.raw(`id, ${CREATED.join(', ')}, coalesce(description, '') <> '' as has_description`);
/** The same, selected from the insert's CTE `t`. */
export const CREATED_COLUMNS = sql.raw([...CREATED, 'has_description'].map((c) => `t.${c}`).join(', '));

export type CreatedTaskRow = Record<(typeof CREATED)[number], unknown> & { has_description: boolean };

/** The record of a task created a moment ago in one column, with these assignees and nothing else yet. */
export function createdTaskRecord(
  id: number,
  t: CreatedTaskRow,
  placement: { stageId: number; projectId: number; order: number },
  assignees: number[],
): TaskRecord {
  return {
    id,
    spaceId: num(t.space_id),
    name: t.name as string,
    creatorId: numOrNull(t.creator_id),
    color: strOrNull(t.color),
    status: num(t.status),
    dateBegin: t.date_begin as MaybeStamp,
    dateEnd: t.date_end as MaybeStamp,
    dateBeginWithoutTime: strOrNull(t.date_begin_without_time),
    dateEndWithoutTime: strOrNull(t.date_end_without_time),
    dateMove: t.date_move as MaybeStamp,
    dateStatusChanged: t.date_status_changed as MaybeStamp,
    blockReason: strOrNull(t.block_reason),
    importance: num(t.importance),
    planTime: num(t.plan_time),
    hasDescription: t.has_description,
    archivedAt: t.archived_at as MaybeStamp,
    createdAt: t.created_at as Stamp,
    updatedAt: t.updated_at as Stamp,
    stages: [{ stageId: placement.stageId, order: placement.order, pinned: true, projectId: placement.projectId }],
    tags: [],
    parentTaskIds: [],
    // Written in one statement, they share created_at: the task form orders them by id.
    responsibleUserId: [...assignees].sort((a, b) => a - b),
    members: [],
    list: [],
    cover: null,
    inspectors: [],
    hasMessages: false,
    factTime: 0,
  };
}

/*
 * The task records of a board (many tasks at once) in two statements that answer one row each: per
 * table, one JSON array of compact tuples, read by task id in one pass over the table or its index, and
 * grouped per task here. Per-task subqueries (the shape for a few tasks) ran ten index probes and
 * built ten small JSON documents per task: 16-26 ms of the database for a 1,000-task board, against
 * 8 ms this way; and each task's row was parsed apart by the driver. Placements are read once (a
 * materialized CTE) both for themselves and to name the columns to rank.
 *
 * The ids are a set (`k`) joined to, not `= any($ids)` on each table: in the prepared statement's
 * generic plan the array is a parameter, and where a small organization's table is read whole,
 * PostgreSQL tested each row against the array element by element (1,000 × 1,000 comparisons per
 * table, 10 ms of a 1,000-task board); joined, it hashes the set, or probes the index per id.
 *
 * Timestamps go out as text (`::text`), the same text the driver receives for a timestamp column,
 * so the presenter formats them exactly as before; inspectors' `updatedAt` stays JSON's as it was.
 */

type Tuple = unknown[];

interface Tables {
  tasks: Tuple[] | null;
  stages: Tuple[] | null;
  assignees: Tuple[] | null;
  members: Tuple[] | null;
  labels: Tuple[] | null;
  subtasks: Tuple[] | null;
  parents: Tuple[] | null;
  covers: Tuple[] | null;
  inspectors: Tuple[] | null;
  chats: number[] | null;
  time: Tuple[] | null;
}

/** One child table as tuples `[task id, ...columns]`, in each task's order. Names are constants of this file. */
const byTask = (table: string, columns: string, order: string, key = 'task_id') =>
  sql`(select json_agg(json_build_array(x.${sql.raw(key)}, ${sql.raw(columns)}) order by x.${sql.raw(key)}, ${sql.raw(order)})
       from ${sql.raw(table)} x where x.${sql.raw(key)} in (select id from k))`;

const CHILDREN: Array<[name: keyof Tables, table: string, columns: string, order: string, key?: string]> = [
  ['assignees', 'task_assignees', 'x.user_id', 'x.created_at, x.user_id'],
  ['members', 'task_members', 'x.user_id', 'x.created_at, x.user_id'],
  ['labels', 'task_labels', 'x.label_id', 'x.created_at, x.label_id'],
  ['subtasks', 'subtasks', 'x.id, x.name, x.is_checked, x.child_task_id, x."order"', 'x."order", x.id'],
  ['parents', 'subtasks', 'x.task_id', 'x.task_id', 'child_task_id'],
  ['covers', 'task_covers', 'x.id, x.height, x.width, x.picture_uid, x.dominant_color', 'x.id'],
  ['inspectors', 'task_inspectors', 'x.user_id, x.status, x.comment, x.updated_at', 'x.created_at, x.id'],
];

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown) => v as string;
const strOrNull = (v: unknown) => v as string | null;

export async function loadBoardRecords(db: Queryable, organizationId: number, taskIds: number[]): Promise<TaskRecord[]> {
  const k = sql`with k as materialized (select unnest(${idArray(taskIds)}) as id)`;
  const children = CHILDREN.map(([name, table, columns, order, key]) => sql`${byTask(table, columns, order, key)} as ${sql.raw(name)}`);
  // Two statements of about equal cost, the tasks with their placements and the child tables:
  // outside a transaction each runs on its own pooled connection, so PostgreSQL builds the two
  // halves of a board on two cores at once (one connection's board: 7.3 ms of the database's time
  // in one statement). They see two snapshots, as the page query before them already does: a
  // change committed between them reads as made a moment later.
  const [[own], [rest]] = await allOf(db, [
    () =>
      queryRows<Pick<Tables, 'tasks' | 'stages'>>(
        db,
        sql`${k},
        p as materialized (select task_id, stage_id, "order", pinned, project_id from task_stages where task_id in (select id from k)),
        dense as (
          select task_id, stage_id, (row_number() over (partition by stage_id order by "order", task_id) - 1)::int as pos
          from task_stages where "order" is not null and stage_id in (select stage_id from p where "order" is not null))
        select
          (select json_agg(json_build_array(t.id, t.space_id, t.name, t.creator_id, t.color, t.status, t.date_begin::text, t.date_end::text,
              t.date_begin_without_time::text, t.date_end_without_time::text, t.date_move::text, t.date_status_changed::text, t.block_reason,
              t.importance, t.plan_time, coalesce(t.description, '') <> '', t.archived_at::text, t.created_at::text, t.updated_at::text))
             from tasks t where t.id in (select id from k) and t.organization_id = ${organizationId}) as tasks,
          (select json_agg(json_build_array(p.task_id, p.stage_id, d.pos, p.pinned, p.project_id) order by p.task_id, p.pinned desc, p.project_id)
             from p left join dense d on d.task_id = p.task_id and d.stage_id = p.stage_id) as stages`,
        { prepare: 'task-records-board' },
      ),
    () =>
      queryRows<Omit<Tables, 'tasks' | 'stages'>>(
        db,
        sql`${k}
        select
          ${sql.join(children, sql`, `)},
          -- Existence only: one index probe per task instead of reading its messages.
          (select json_agg(x.id) from k x where exists (select 1 from task_messages m where m.task_id = x.id)) as chats,
          (select json_agg(json_build_array(r.task_id, r.hours))
             from (select task_id, sum(hours)::float8 as hours from time_records where task_id in (select id from k) group by task_id) r) as time`,
        { prepare: 'task-records-board-children' },
      ),
  ]);
  const row: Partial<Tables> = { ...own, ...rest };
  const records = new Map<number, TaskRecord>();
  for (const t of row.tasks ?? []) {
    const id = num(t[0]);
    records.set(id, {
      id,
      spaceId: num(t[1]),
      name: str(t[2]),
      creatorId: numOrNull(t[3]),
      color: strOrNull(t[4]),
      status: num(t[5]),
      dateBegin: strOrNull(t[6]),
      dateEnd: strOrNull(t[7]),
      dateBeginWithoutTime: strOrNull(t[8]),
      dateEndWithoutTime: strOrNull(t[9]),
      dateMove: strOrNull(t[10]),
      dateStatusChanged: strOrNull(t[11]),
      blockReason: strOrNull(t[12]),
      importance: num(t[13]),
      planTime: num(t[14]),
      hasDescription: t[15] as boolean,
      archivedAt: strOrNull(t[16]),
      createdAt: str(t[17]),
      updatedAt: str(t[18]),
      stages: [],
      tags: [],
      parentTaskIds: [],
      responsibleUserId: [],
      members: [],
      list: [],
      cover: null,
      inspectors: [],
      hasMessages: false,
      factTime: 0,
    });
  }
  const each = (tuples: Tuple[] | null | undefined, fn: (r: TaskRecord, t: Tuple) => void) => {
    for (const t of tuples ?? []) {
      const r = records.get(num(t[0]));
      if (r) fn(r, t);
    }
  };
  each(row.stages, (r, t) => r.stages.push({ stageId: num(t[1]), order: numOrNull(t[2]), pinned: t[3] as boolean, projectId: num(t[4]) }));
  each(row.assignees, (r, t) => r.responsibleUserId.push(num(t[1])));
  each(row.members, (r, t) => r.members.push(num(t[1])));
  each(row.labels, (r, t) => r.tags.push(num(t[1])));
  each(row.subtasks, (r, t) =>
    r.list.push({ id: num(t[1]), name: str(t[2]), isChecked: t[3] as boolean, taskId: r.id, childTaskId: numOrNull(t[4]), order: num(t[5]) }),
  );
  each(row.parents, (r, t) => r.parentTaskIds.push(num(t[1])));
  each(row.covers, (r, t) => {
    r.cover ??= { id: num(t[1]), height: num(t[2]), width: num(t[3]), pictureUid: str(t[4]), dominantColor: str(t[5]), taskId: r.id };
  });
  each(row.inspectors, (r, t) => r.inspectors.push({ userId: num(t[1]), status: num(t[2]), comment: strOrNull(t[3]), updatedAt: str(t[4]) }));
  each(row.time, (r, t) => (r.factTime = num(t[1])));
  for (const id of row.chats ?? []) {
    const r = records.get(num(id));
    if (r) r.hasMessages = true;
  }
  const out: TaskRecord[] = [];
  for (const id of taskIds) {
    const r = records.get(id);
    if (r) out.push(r);
  }
  return out;
}
