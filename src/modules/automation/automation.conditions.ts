import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { Condition } from './automation.schemas.js';

/**
 * Conditions are tested on the task as it is when the rule runs (after the triggering change and
 * any rule before it), not as the event saw it: a rule acts on the present.
 */

/** The due moment: dateEnd, or the end (UTC) of dateEndWithoutTime's day; as the due-date job reads it. */
export function dueAt(task: Pick<TaskDto, 'dateEnd' | 'dateEndWithoutTime'>): number | null {
  if (task.dateEnd) return Date.parse(task.dateEnd);
  if (task.dateEndWithoutTime) return Date.parse(`${task.dateEndWithoutTime}T00:00:00.000Z`) + 86_400_000;
  return null;
}

function numbers(task: TaskDto, field: 'stage' | 'status' | 'importance'): number[] {
  if (field === 'stage') return task.stages.map((s) => s.stageId);
  return [field === 'status' ? task.status : task.importance];
}

function holds(c: Condition, task: TaskDto, now: number): boolean {
  const v = c.value;
  switch (c.field) {
    case 'stage':
    case 'status':
    case 'importance': {
      const have = numbers(task, c.field);
      const want = Array.isArray(v) ? v : [v as number];
      const any = have.some((x) => want.includes(x));
      return c.op === 'neq' ? !any : any;
    }
    case 'labels':
    case 'assignees':
    case 'members': {
      const list = c.field === 'labels' ? task.tags : c.field === 'assignees' ? task.responsibleUserId : task.members;
      if (c.op === 'empty') return list.length === 0;
      if (c.op === 'not-empty') return list.length > 0;
      return list.includes(v as number);
    }
    case 'name': {
      const name = task.name.toLocaleLowerCase();
      const text = String(v).trim().toLocaleLowerCase();
      return c.op === 'eq' ? name === text : name.includes(text);
    }
    case 'dueDate': {
      const due = dueAt(task);
      if (c.op === 'empty') return due === null;
      if (c.op === 'not-empty') return due !== null;
      return due !== null && due <= now;
    }
    case 'checklist': {
      const done = task.checklist.items > 0 && task.checklist.itemsChecked === task.checklist.items;
      return done === v;
    }
  }
}

/** Whether every condition holds (no conditions: always). */
export function conditionsHold(conditions: Condition[], task: TaskDto | null, now = Date.now()): boolean {
  if (conditions.length === 0) return true;
  return task !== null && conditions.every((c) => holds(c, task, now));
}
