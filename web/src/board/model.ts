import type { Envelope, Project, Stage, Task } from '../api/client';

/** What the board query holds: the project (with its columns) and its open tasks. */
export interface BoardData {
  project: Project;
  tasks: Task[];
}

export const placeOf = (task: Task, projectId: number) => task.stages.find((s) => s.projectId === projectId);

/** The tasks of each column in board order (a task's place in this project is its `stages` entry). */
export function groupColumns(tasks: Task[], stages: Stage[], projectId: number): Map<number, Task[]> {
  const columns = new Map<number, Task[]>(stages.map((s) => [s.id, []]));
  for (const task of tasks) {
    const place = placeOf(task, projectId);
    if (place) columns.get(place.stageId)?.push(task);
  }
  for (const list of columns.values()) list.sort((a, b) => Number(placeOf(a, projectId)!.order) - Number(placeOf(b, projectId)!.order) || a.id - b.id);
  return columns;
}

const withOrder = (task: Task, projectId: number, stageId: number, order: number): Task => ({
  ...task,
  stages: [...task.stages.filter((s) => s.projectId !== projectId), { ...(placeOf(task, projectId) ?? { pinned: false, projectId }), stageId, order: String(order) }],
});

/**
 * Puts `task` at `index` of column `stageId` and numbers the columns it left and entered densely,
 * as the server does on a move: the same call serves an optimistic move and the event that
 * confirms it (applying it twice changes nothing).
 */
export function placeTask(tasks: Task[], projectId: number, task: Task, stageId: number, index: number): Task[] {
  const fromStageId = placeOf(tasks.find((t) => t.id === task.id) ?? task, projectId)?.stageId;
  const rest = tasks.filter((t) => t.id !== task.id);
  const touched = new Set([stageId, fromStageId]);
  const renumbered = new Map<number, Task>();
  for (const id of touched) {
    if (id === undefined) continue;
    const column = rest.filter((t) => placeOf(t, projectId)?.stageId === id).sort((a, b) => Number(placeOf(a, projectId)!.order) - Number(placeOf(b, projectId)!.order));
    if (id === stageId) column.splice(Math.max(0, Math.min(index, column.length)), 0, task);
    column.forEach((t, i) => renumbered.set(t.id, withOrder(t, projectId, id, i)));
  }
  const next = rest.map((t) => renumbered.get(t.id) ?? t);
  next.push(renumbered.get(task.id)!);
  return next;
}

export const removeTask = (tasks: Task[], id: number) => (tasks.some((t) => t.id === id) ? tasks.filter((t) => t.id !== id) : tasks);

/** A task as the server now has it: placed where it says, or gone if it left this board. */
export function upsertTask(board: BoardData, task: Task): BoardData {
  const place = placeOf(task, board.project.id);
  if (!place) return { ...board, tasks: removeTask(board.tasks, task.id) };
  return { ...board, tasks: placeTask(board.tasks, board.project.id, task, place.stageId, Number(place.order)) };
}

function withStages(board: BoardData, stages: Stage[]): BoardData {
  return { ...board, project: { ...board.project, stages: [...stages].sort((a, b) => Number(a.order) - Number(b.order)) } };
}

type TaskPayload = { task: Task };

/**
 * One event applied to a board without refetching it. Answers the same object when the event is
 * not about this board, and `null` when the board must be reloaded (a column sorted server-side).
 */
export function applyEvent(board: BoardData, e: Envelope): BoardData | null {
  const projectId = board.project.id;
  const p = e.payload as Record<string, unknown>;
  switch (e.type) {
    case 'task.created':
    case 'task.updated':
    case 'task.moved':
    case 'task.restored':
    case 'task.duplicated': {
      const task = (p as TaskPayload).task;
      const known = board.tasks.some((t) => t.id === task.id);
      if (!known && !placeOf(task, projectId)) return board;
      return upsertTask(board, task);
    }
    case 'task.archived':
    case 'task.deleted':
    case 'task.left': {
      const id = (p as { id?: number; task?: Task }).task?.id ?? (p as { id: number }).id;
      const tasks = removeTask(board.tasks, id);
      return tasks === board.tasks ? board : { ...board, tasks };
    }
  }
  if (e.projectId !== projectId) return board;
  switch (e.type) {
    case 'stage.created':
    case 'stage.updated': {
      const stage = p as unknown as Stage;
      return withStages(board, [...board.project.stages.filter((s) => s.id !== stage.id), stage]);
    }
    case 'stage.moved':
      return withStages(board, (p as { stages: Stage[] }).stages);
    case 'stage.deleted':
      return withStages(board, board.project.stages.filter((s) => s.id !== (p as { id: number }).id));
    case 'stage.sorted':
      return null;
    case 'project.updated':
      return 'name' in p ? { ...board, project: { ...board.project, ...(p as Partial<Project>), stages: board.project.stages } } : board;
  }
  return board;
}

export interface BoardFilter {
  assigneeId: number | null;
  labelId: number | null;
  status: number | null;
  due: 'any' | 'overdue' | 'week' | 'none';
}

export const NO_FILTER: BoardFilter = { assigneeId: null, labelId: null, status: null, due: 'any' };

/** The task's due day (YYYY-MM-DD), from the date-only field or the date-time one. */
export const dueOf = (t: Task): string | null => t.dateEndWithoutTime ?? t.dateEnd?.slice(0, 10) ?? null;

export function matches(task: Task, f: BoardFilter, today: string): boolean {
  if (f.assigneeId !== null && !task.responsibleUserId.includes(f.assigneeId)) return false;
  if (f.labelId !== null && !task.tags.includes(f.labelId)) return false;
  if (f.status !== null && task.status !== f.status) return false;
  const due = dueOf(task);
  if (f.due === 'none') return due === null;
  if (f.due === 'overdue') return due !== null && due < today && task.status !== 1;
  if (f.due === 'week') {
    const end = new Date(`${today}T00:00:00Z`);
    end.setUTCDate(end.getUTCDate() + 7);
    return due !== null && due >= today && due <= end.toISOString().slice(0, 10);
  }
  return true;
}

export const isFiltered = (f: BoardFilter) => f.assigneeId !== null || f.labelId !== null || f.status !== null || f.due !== 'any';
