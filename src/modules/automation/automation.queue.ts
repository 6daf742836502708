import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import { listenerRead, type EventInput, type RecordedEvent, type TransactionalListener } from '../../platform/events.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { Trigger } from './automation.schemas.js';

/**
 * Queues rule runs in the transaction that records the triggering events, as webhook deliveries
 * are: a change that rolls back queues nothing, one that commits cannot lose its runs, and the
 * unique (rule, cause) row makes each run happen once. Nothing of the rule runs here: the engine
 * takes the rows after commit, so a failing rule never fails the write that triggered it.
 *
 * What changed is read from rows the same transaction wrote, all stamped with its now(): column
 * stays (entered/left), status changes, assignee and label rows. Their timestamps are the
 * transaction's, so they name exactly this change.
 */

/** Chains of rules triggering rules stop past this depth (routes.md). */
export const MAX_DEPTH = 3;

// The depth of the run whose transaction this is; a person's change is depth 0.
const depths = new WeakMap<object, number>();
export const setRunDepth = (db: Queryable, depth: number): void => void depths.set(db, depth);

const H = { created: 0, moved: 3, status: 4, assignees: 8, labels: 10, subtasks: 11, needsAttention: 21 } as const;
const EVENT_TRIGGERS = ['task.created', 'entered-stage', 'left-stage', 'status-changed', 'assignee-added', 'label-added', 'checklist-completed'];

interface RuleRow {
  id: number;
  organizationId: number;
  projectId: number;
  spaceId: number;
  name: string;
  trigger: Trigger;
}

interface Changes {
  entered: Set<string>;
  left: Set<string>;
  status: Map<number, number>;
  assignees: Set<string>;
  labels: Set<string>;
  addedAssignee: Set<number>;
  addedLabel: Set<number>;
}

const key = (a: number, b: number) => `${a}:${b}`;

interface TaskEvent {
  event: RecordedEvent;
  task: TaskDto;
  historyType: number;
}

function taskEvents(recorded: RecordedEvent[]): TaskEvent[] {
  const out: TaskEvent[] = [];
  for (const event of recorded) {
    if (!event.type.startsWith('task.') || event.taskId === null) continue;
    const payload = event.payload as { task?: TaskDto; history?: { type?: number } } | null;
    if (!payload?.task || typeof payload.history?.type !== 'number') continue;
    out.push({ event, task: payload.task, historyType: payload.history.type });
  }
  return out;
}

async function changesOf(db: Queryable, events: TaskEvent[], types: Set<string>): Promise<Changes> {
  const changes: Changes = { entered: new Set(), left: new Set(), status: new Map(), assignees: new Set(), labels: new Set(), addedAssignee: new Set(), addedLabel: new Set() };
  const ids = (h: number[]) => [...new Set(events.filter((e) => h.includes(e.historyType)).map((e) => e.task.id))];
  const moved = types.has('entered-stage') || types.has('left-stage') ? ids([H.moved]) : [];
  if (moved.length > 0) {
    const rows = await queryRows<{ taskId: number; stageId: number; entered: boolean; left: boolean }>(
      db,
      sql`select task_id as "taskId", stage_id as "stageId", entered_at = now() as entered, left_at = now() as left
          from task_stage_stays where task_id = any(${idArray(moved)}) and (entered_at = now() or left_at = now())`,
    );
    for (const r of rows) {
      // Entered and left in the same change (moved through): neither counts.
      if (r.entered && r.left) continue;
      (r.entered ? changes.entered : changes.left).add(key(Number(r.taskId), Number(r.stageId)));
    }
  }
  const statusTasks = types.has('status-changed') ? ids([H.status, H.needsAttention]) : [];
  if (statusTasks.length > 0) {
    const rows = await queryRows<{ taskId: number; status: number }>(
      db,
      sql`select distinct on (task_id) task_id as "taskId", status from task_status_changes
          where task_id = any(${idArray(statusTasks)}) and at = now() order by task_id, id desc`,
    );
    for (const r of rows) changes.status.set(Number(r.taskId), Number(r.status));
  }
  // Assignee and label rows this transaction added: (task, what) pairs, and the tasks that got one.
  const added = async (taskIds: number[], table: 'task_assignees' | 'task_labels', column: 'user_id' | 'label_id', pairs: Set<string>, tasks: Set<number>) => {
    if (taskIds.length === 0) return;
    const rows = await queryRows<{ taskId: number; otherId: number }>(
      db,
      sql`select task_id as "taskId", ${sql.identifier(column)} as "otherId" from ${sql.identifier(table)}
          where task_id = any(${idArray(taskIds)}) and created_at = now()`,
    );
    for (const r of rows) {
      pairs.add(key(Number(r.taskId), Number(r.otherId)));
      tasks.add(Number(r.taskId));
    }
  };
  await added(types.has('assignee-added') ? ids([H.assignees]) : [], 'task_assignees', 'user_id', changes.assignees, changes.addedAssignee);
  await added(types.has('label-added') ? ids([H.labels]) : [], 'task_labels', 'label_id', changes.labels, changes.addedLabel);
  return changes;
}

function fires(rule: RuleRow, { event, task, historyType }: TaskEvent, c: Changes): boolean {
  const t = rule.trigger;
  switch (t.type) {
    case 'task.created':
      return historyType === H.created && (t.stageId === undefined ? event.projectId === rule.projectId : task.stages.some((s) => s.stageId === t.stageId));
    case 'entered-stage':
      return historyType === H.moved && c.entered.has(key(task.id, t.stageId!));
    case 'left-stage':
      return historyType === H.moved && c.left.has(key(task.id, t.stageId!));
    case 'status-changed': {
      if (historyType !== H.status && historyType !== H.needsAttention) return false;
      const to = c.status.get(task.id);
      return to !== undefined && (t.status === undefined || t.status === to);
    }
    case 'assignee-added':
      return historyType === H.assignees && (t.userId === undefined ? c.addedAssignee.has(task.id) : c.assignees.has(key(task.id, t.userId)));
    case 'label-added':
      return historyType === H.labels && (t.labelId === undefined ? c.addedLabel.has(task.id) : c.labels.has(key(task.id, t.labelId)));
    case 'checklist-completed':
      return historyType === H.subtasks && task.checklist.items > 0 && task.checklist.itemsChecked === task.checklist.items;
    default:
      return false;
  }
}

interface RunInsert {
  organization_id: number;
  rule_id: number;
  cause: string;
  event_id: number;
  task_id: number;
  depth: number;
  status: 'pending' | 'failed';
  error: string | null;
}

/** The transactional listener; `onQueued` hears which organizations got runs to do. */
export function queueRuns(onQueued: (organizationIds: number[]) => void): TransactionalListener {
  return async (db, recorded) => {
    const events = taskEvents(recorded);
    if (events.length === 0) return;
    const projectIds = new Set<number>();
    for (const { event, task } of events) {
      if (event.projectId !== null) projectIds.add(event.projectId);
      for (const s of task.stages) projectIds.add(s.projectId);
    }
    // A task that left a project for another: the board it left may have a left-stage rule.
    for (const e of recorded) if (e.type === 'task.left' && e.projectId !== null) projectIds.add(e.projectId);
    const read = sql`select r.id, r.organization_id as "organizationId", r.project_id as "projectId", p.space_id as "spaceId", r.name, r.trigger
          from automation_rules r join projects p on p.id = r.project_id
          where r.enabled and r.project_id = any(${idArray([...projectIds])}) and r.trigger_type in (${sql.raw(EVENT_TRIGGERS.map((t) => `'${t}'`).join(', '))})
          order by r."order", r.id`;
    return listenerRead<RuleRow>(read, async (rules) => {
      if (rules.length === 0) return;
      const changes = await changesOf(db, events, new Set(rules.map((r) => r.trigger.type)));
      // Runs are keyed by their cause's event id: queued once the events have ids.
      return async (emitMore) => {
        const depth = (depths.get(db) ?? 0) + 1;
        const rows: RunInsert[] = [];
        const seen = new Set<string>();
        for (const te of events) {
          const inProject = new Set([te.event.projectId, ...te.task.stages.map((s) => s.projectId)]);
          for (const rule of rules) {
            if (Number(rule.organizationId) !== te.event.organizationId) continue;
            if (!inProject.has(Number(rule.projectId)) && rule.trigger.type !== 'left-stage') continue;
            // One run per rule and task per change, however many of its events match.
            const once = key(Number(rule.id), te.task.id);
            if (seen.has(once) || !fires(rule, te, changes)) continue;
            seen.add(once);
            const tooDeep = depth > MAX_DEPTH;
            rows.push({
              organization_id: te.event.organizationId,
              rule_id: Number(rule.id),
              cause: `e:${te.event.id}`,
              event_id: te.event.id,
              task_id: te.task.id,
              depth,
              status: tooDeep ? 'failed' : 'pending',
              error: tooDeep ? `stopped: rules triggered rules ${MAX_DEPTH} times in a row` : null,
            });
            if (tooDeep) emitMore(failedEvent(rule, te.event, rows.at(-1)!.error!));
          }
        }
        if (rows.length === 0) return;
        await db.execute(
          sql`insert into automation_runs (organization_id, rule_id, cause, event_id, task_id, depth, status, error, finished_at)
              select r.organization_id, r.rule_id, r.cause, r.event_id, r.task_id, r.depth, r.status, r.error,
                     case when r.status = 'failed' then now() end
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as r(organization_id bigint, rule_id bigint, cause text, event_id bigint, task_id bigint, depth smallint, status text, error text)
              on conflict (rule_id, cause) do nothing`,
        );
        const stopped = rows.filter((r) => r.status === 'failed');
        if (stopped.length > 0) {
          await db.execute(
            sql`update automation_rules set last_error = ${stopped[0]!.error}, last_run_at = now()
                where id = any(${idArray(stopped.map((r) => r.rule_id))})`,
          );
        }
        const pending = rows.filter((r) => r.status === 'pending');
        if (pending.length > 0) onQueued([...new Set(pending.map((r) => r.organization_id))]);
      };
    }, { quiet: true });
  };
}

function failedEvent(rule: RuleRow, event: RecordedEvent, error: string): EventInput {
  return {
    type: 'automation.rule.failed',
    organizationId: event.organizationId,
    projectId: Number(rule.projectId),
    spaceId: Number(rule.spaceId),
    taskId: event.taskId,
    actorId: null,
    payload: { ruleId: Number(rule.id), ruleName: rule.name, runId: null, eventId: event.id, taskId: event.taskId, error },
  };
}
