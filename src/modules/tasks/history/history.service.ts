import { sql } from 'drizzle-orm';
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

interface HistoryRow {
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

/**
 * Writes history rows with one statement, in the caller's transaction (so a change and its record
 * commit or roll back together), and answers them in the order given. One entry per task per call.
 */
export async function recordHistory(db: Queryable, actor: Actor, entries: HistoryEntry[]): Promise<HistoryDto[]> {
  if (entries.length === 0) return [];
  // A rule acts as the system: no user, and the sentence names the rule.
  const rule = actor.automation;
  const rows = await queryRows<HistoryRow>(
    db,
    sql`insert into task_history (organization_id, task_id, user_id, automation_rule_id, type, state, project_name, task_name)
        select ${actor.organizationId}, e.task_id, ${rule ? null : actor.userId}::bigint, ${rule?.ruleId ?? null}::bigint, e.type, e.state, e.project_name, e.task_name
        from jsonb_to_recordset(${JSON.stringify(entries.map((e) => ({ task_id: e.taskId, type: e.type, state: rule ? `${e.state} (automation rule "${rule.ruleName}")` : e.state, project_name: e.projectName, task_name: e.taskName })))}::jsonb)
          as e(task_id bigint, type smallint, state text, project_name text, task_name text)
        returning id, update_date as "updateDate", task_id as "taskId", user_id as "userId", state, type,
          project_name as "projectName", commit_name as "commitName", commit_link as "commitLink", task_name as "taskName"`,
  );
  const byTask = new Map(rows.map((r) => [Number(r.taskId), r]));
  const history = entries.map((e) => presentHistory(byTask.get(e.taskId)!));
  // Every task change writes one history record, so this is where its event is emitted.
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
