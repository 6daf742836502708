import type { Queryable } from '../../db/client.js';
import { emit, type Completer, type EventType } from '../../platform/events.js';
import type { HistoryDto } from './history/history.schemas.js';
import { loadTaskRecords, presentTask, type TaskRecord } from './tasks.presenter.js';

/**
 * task.* events: `{task: Task(full), history, changes}` (routes.md). The task form is loaded once
 * for every task event of the transaction, at commit time, so it shows the final state.
 */
export const taskPayload: Completer = {
  name: 'task',
  async complete(db, organizationId, events) {
    const ids = [...new Set(events.map((e) => e.taskId!))];
    const records = new Map<number, TaskRecord>();
    const known = shared.get(db);
    shared.delete(db);
    for (const id of ids) if (known?.has(id)) records.set(id, known.get(id)!);
    const missing = ids.filter((id) => !records.has(id));
    if (missing.length > 0) for (const r of await loadTaskRecords(db, organizationId, missing)) records.set(Number(r.id), r);
    for (const event of events) {
      const record = records.get(event.taskId!);
      // Changed, then deleted in the same transaction: the deletion is the event that counts.
      if (!record) {
        event.dropped = true;
        continue;
      }
      const home = record.stages.find((s) => s.pinned) ?? record.stages[0];
      event.spaceId = Number(record.spaceId);
      event.projectId = home ? Number(home.projectId) : null;
      event.payload = { task: presentTask(record), ...(event.payload as object) };
    }
  },
};

const shared = new WeakMap<object, Map<number, TaskRecord>>();

/**
 * Hands the task forms a use case loaded for its answer, after its last change, to the events of
 * the same transaction, which would otherwise load them again at commit. Only for records that no
 * later statement of the transaction changes.
 */
export function shareTaskRecords(db: Queryable, records: TaskRecord[]): void {
  shared.set(db, new Map(records.map((r) => [Number(r.id), r])));
}

// History type (conventions.md) → event type and the fields it changed.
const BY_HISTORY: Record<number, { type: EventType; changes: string[] }> = {
  0: { type: 'task.created', changes: [] },
  1: { type: 'task.updated', changes: ['name'] },
  2: { type: 'task.updated', changes: ['description'] },
  3: { type: 'task.moved', changes: ['stages'] },
  4: { type: 'task.updated', changes: ['status'] },
  5: { type: 'task.updated', changes: ['dates'] },
  6: { type: 'task.updated', changes: ['importance'] },
  7: { type: 'task.updated', changes: ['color'] },
  8: { type: 'task.updated', changes: ['responsibleUserId'] },
  9: { type: 'task.updated', changes: ['members'] },
  10: { type: 'task.updated', changes: ['tags'] },
  11: { type: 'task.updated', changes: ['list'] },
  12: { type: 'task.updated', changes: ['cover'] },
  13: { type: 'task.updated', changes: ['planTime'] },
  14: { type: 'task.updated', changes: ['factTime'] },
  15: { type: 'task.updated', changes: ['inspectors'] },
  16: { type: 'task.archived', changes: ['archived'] },
  17: { type: 'task.restored', changes: ['archived'] },
  18: { type: 'task.updated', changes: ['commits'] },
  19: { type: 'task.updated', changes: ['hasMessages'] },
  20: { type: 'task.duplicated', changes: [] },
  21: { type: 'task.updated', changes: ['status', 'blockReason'] },
};

/** One event per history record: every task change writes exactly one, so none is missed. */
export function emitTaskHistory(db: Queryable, organizationId: number, history: HistoryDto[]): void {
  for (const h of history) {
    const kind = BY_HISTORY[h.type] ?? { type: 'task.updated' as const, changes: [] };
    // The history's organization, which is not the caller's when a timer of another one stops.
    emit(db, { type: kind.type, organizationId, taskId: h.taskId, payload: { history: h, changes: kind.changes }, completer: taskPayload });
  }
}

export interface TaskDeparture {
  taskId: number;
  spaceId: number;
  projectId: number;
  stageId: number;
}

/**
 * A task relocated to another project: the board it left hears `task.left {id, stageId}`, judged by
 * that board's readers. task.moved carries the whole task and goes where the task now is, so those
 * who may read only the old board would otherwise keep a card that is gone.
 */
export function emitTaskLeft(db: Queryable, departures: TaskDeparture[]): void {
  for (const d of departures) {
    emit(db, { type: 'task.left', taskId: d.taskId, spaceId: d.spaceId, projectId: d.projectId, payload: { id: d.taskId, stageId: d.stageId } });
  }
}

/** A task deleted for good: `{id}`, with where it was (read before the delete). */
export function emitTaskDeleted(db: Queryable, task: { id: number; spaceId: number | null; projectId: number | null }): void {
  emit(db, { type: 'task.deleted', taskId: task.id, spaceId: task.spaceId, projectId: task.projectId, payload: { id: task.id } });
}
