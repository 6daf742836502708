import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { iso } from '../../../platform/http.js';
import type { HistoryDto } from './history.schemas.js';
import { emitTaskHistory } from '../tasks.events.js';

/** History `type` values of conventions.md (stable once published). */
export const HISTORY = {
  created: 0,
  renamed: 1,
  description: 2,
  moved: 3,
  status: 4,
  dates: 5,
  importance: 6,
  color: 7,
  assignees: 8,
  members: 9,
  labels: 10,
  subtasks: 11,
  cover: 12,
  planTime: 13,
  spentTime: 14,
  inspectors: 15,
  archived: 16,
  restored: 17,
  duplicated: 20,
  needsAttention: 21,
} as const;

export interface HistoryEntry {
  taskId: number;
  type: (typeof HISTORY)[keyof typeof HISTORY];
  state: string;
  projectName: string;
  taskName: string;
}

export interface HistoryRow {
  id: number;
  updateDate: Date | string;
  taskId: number;
  userId: number | null;
  state: string;
  type: number;
  projectName: string;
  commitName: string;
  commitLink: string;
  taskName: string;
}

export const presentHistory = (r: HistoryRow): HistoryDto => ({
  id: Number(r.id),
  updateDate: iso(r.updateDate)!,
  taskId: Number(r.taskId),
  userId: r.userId === null ? null : Number(r.userId),
  state: r.state,
  type: Number(r.type),
  projectName: r.projectName,
  commitName: r.commitName,
  commitLink: r.commitLink,
  taskName: r.taskName,
});

// A rule acts as the system: no user, and the sentence names the rule.
// An agent acts as its user: the sentence says which client it came through.
const stateBy = (actor: Actor, state: string): string =>
  actor.automation ? `${state} (automation rule "${actor.automation.ruleName}")` : actor.via ? `${state} (via ${actor.via})` : state;
const RETURNING = sql`returning id, update_date as "updateDate", task_id as "taskId", user_id as "userId", state, type,
          project_name as "projectName", commit_name as "commitName", commit_link as "commitLink", task_name as "taskName"`;

/**
 * Writes history rows with one statement, in the caller's transaction (so a change and its record
 * commit or roll back together), and answers them in the order given. One entry per task per call.
 * `alongside`, a data-modifying statement (the change's own update of the tasks, say), runs in the
 * same statement: one round trip fewer.
 */
export async function recordHistory(db: Queryable, actor: Actor, entries: HistoryEntry[], alongside?: SQL): Promise<HistoryDto[]> {
  if (entries.length === 0) return [];
  const rule = actor.automation;
  const rows = await queryRows<HistoryRow>(
    db,
    sql`${alongside ? sql`with alongside as (${alongside}) ` : sql``}insert into task_history (organization_id, task_id, user_id, automation_rule_id, client_name, type, state, project_name, task_name)
        select ${actor.organizationId}, e.task_id, ${rule ? null : actor.userId}::bigint, ${rule?.ruleId ?? null}::bigint, ${actor.via ?? null}::text, e.type, e.state, e.project_name, e.task_name
        from jsonb_to_recordset(${JSON.stringify(entries.map((e) => ({ task_id: e.taskId, type: e.type, state: stateBy(actor, e.state), project_name: e.projectName, task_name: e.taskName })))}::jsonb)
          as e(task_id bigint, type smallint, state text, project_name text, task_name text)
        ${RETURNING}`,
    // One text per call site's `alongside`: a bounded set of statements.
    { prepare: 'history' },
  );
  const byTask = new Map(rows.map((r) => [Number(r.taskId), r]));
  return historyRecorded(db, actor, entries.map((e) => byTask.get(e.taskId)!));
}

/**
 * The insert of one history record for a task whose id the statement's CTE `from` holds (`id`), for a
 * use case that writes the task and its record in one statement; hand the returned row to historyRecorded.
 */
export function historyInsertFor(actor: Actor, from: string, entry: Omit<HistoryEntry, 'taskId'>): SQL {
  const rule = actor.automation;
  return sql`insert into task_history (organization_id, task_id, user_id, automation_rule_id, client_name, type, state, project_name, task_name)
        select ${actor.organizationId}, f.id, ${rule ? null : actor.userId}::bigint, ${rule?.ruleId ?? null}::bigint, ${actor.via ?? null}::text, ${entry.type}::smallint,
          ${stateBy(actor, entry.state)}, ${entry.projectName}, ${entry.taskName} from ${sql.raw(from)} f
        ${RETURNING}`;
}

/** Presents written history rows and emits their events: every task change writes one, so this is where it is announced. */
export function historyRecorded(db: Queryable, actor: Actor, rows: HistoryRow[]): HistoryDto[] {
  const history = rows.map(presentHistory);
  emitTaskHistory(db, actor.organizationId, history);
  return history;
}

/**
 * One history row of `type` per task, named as the task is now: for changes that reach tasks as a
 * side effect (a label deleted, a linked task gone, a column moved), so that each still announces
 * its task.* event. Tasks that no longer exist are skipped.
 */
export async function recordForTasks(
  db: Queryable,
  actor: Actor,
  taskIds: number[],
  type: HistoryEntry['type'],
  state: string,
): Promise<HistoryDto[]> {
  if (taskIds.length === 0) return [];
  const rows = await queryRows<{ id: number; name: string; projectName: string }>(
    db,
    sql`select t.id, t.name,
          coalesce((select p.name from task_stages ts join projects p on p.id = ts.project_id
                    where ts.task_id = t.id order by ts.pinned desc, ts.project_id limit 1), '') as "projectName"
        from tasks t where t.id = any(${idArray(taskIds)}) and t.organization_id = ${actor.organizationId}`,
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const entries = [...new Set(taskIds)].flatMap((taskId) => {
    const task = byId.get(taskId);
    return task ? [{ taskId, type, state, projectName: task.projectName, taskName: task.name }] : [];
  });
  return recordHistory(db, actor, entries);
}
