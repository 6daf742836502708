import { describe, expect, it } from 'vitest';
import type { Envelope, Project, Task } from '../api/client';
import { applyEvent, groupColumns, matches, NO_FILTER, placeTask, type BoardData } from './model';

const P = 7;
const task = (id: number, stageId: number, order: number, extra: Partial<Task> = {}): Task =>
  ({ id, name: `t${id}`, status: 0, tags: [], responsibleUserId: [], dateEnd: null, dateEndWithoutTime: null, stages: [{ stageId, order: String(order), pinned: false, projectId: P }], ...extra }) as unknown as Task;
const board = (tasks: Task[]): BoardData => ({ project: { id: P, stages: [1, 2].map((id) => ({ id, order: String(id), name: `s${id}`, projectId: P, tasksLimit: 0, color: '' })) } as unknown as Project, tasks });
const names = (b: BoardData, stageId: number) => groupColumns(b.tasks, b.project.stages, P).get(stageId)!.map((t) => t.id);
const event = (type: string, payload: unknown, extra: Partial<Envelope> = {}) => ({ id: 1, type, payload, projectId: P, spaceId: 1, taskId: null, organizationId: 1, actorId: 1, at: '', ...extra }) as Envelope;

describe('board model', () => {
  const start = board([task(1, 1, 0), task(2, 1, 1), task(3, 1, 2), task(4, 2, 0)]);

  it('moves a card across columns and numbers both columns densely, as the server does', () => {
    const moved = { ...start, tasks: placeTask(start.tasks, P, start.tasks[0]!, 2, 1) };
    expect(names(moved, 1)).toEqual([2, 3]);
    expect(names(moved, 2)).toEqual([4, 1]);
    expect(moved.tasks.find((t) => t.id === 2)!.stages[0]!.order).toBe('0');
  });

  it('moves within a column', () => {
    const moved = { ...start, tasks: placeTask(start.tasks, P, start.tasks[0]!, 1, 2) };
    expect(names(moved, 1)).toEqual([2, 3, 1]);
  });

  it('applies the confirming event of an optimistic move without changing anything', () => {
    const moved = { ...start, tasks: placeTask(start.tasks, P, start.tasks[2]!, 2, 0) };
    const confirmed = applyEvent(moved, event('task.moved', { task: moved.tasks.find((t) => t.id === 3), history: {}, changes: ['stages'] }))!;
    expect(names(confirmed, 1)).toEqual(names(moved, 1));
    expect(names(confirmed, 2)).toEqual([3, 4]);
  });

  it('rolls a refused move back from the task’s own previous place', () => {
    const moved = { ...start, tasks: placeTask(start.tasks, P, start.tasks[1]!, 2, 0) };
    const back = applyEvent(moved, event('task.updated', { task: start.tasks[1], history: {}, changes: [] }))!;
    expect(names(back, 1)).toEqual([1, 2, 3]);
    expect(names(back, 2)).toEqual([4]);
  });

  it('adds created tasks, drops archived ones and ignores other boards', () => {
    const created = applyEvent(start, event('task.created', { task: task(9, 2, 1), history: {}, changes: [] }))!;
    expect(names(created, 2)).toEqual([4, 9]);
    const archived = applyEvent(created, event('task.archived', { task: task(9, 2, 1), history: {}, changes: [] }))!;
    expect(names(archived, 2)).toEqual([4]);
    const elsewhere = task(10, 99, 0, { stages: [{ stageId: 99, order: '0', pinned: false, projectId: 8 }] } as Partial<Task>);
    expect(applyEvent(start, event('task.created', { task: elsewhere, history: {}, changes: [] }, { projectId: 8 }))).toBe(start);
  });

  it('keeps columns in their order from stage events and asks for a reload after a server-side sort', () => {
    const reordered = applyEvent(start, event('stage.moved', { projectId: P, stages: [{ ...start.project.stages[1], order: '0' }, { ...start.project.stages[0], order: '1' }] }))!;
    expect(reordered.project.stages.map((s) => s.id)).toEqual([2, 1]);
    expect(applyEvent(start, event('stage.sorted', {}))).toBeNull();
  });

  it('filters by assignee, label, status and due date', () => {
    const t = task(1, 1, 0, { responsibleUserId: [5], tags: [3], status: 1, dateEndWithoutTime: '2026-01-10' });
    expect(matches(t, { ...NO_FILTER, assigneeId: 5, labelId: 3, status: 1 }, '2026-01-01')).toBe(true);
    expect(matches(t, { ...NO_FILTER, assigneeId: 6 }, '2026-01-01')).toBe(false);
    expect(matches(t, { ...NO_FILTER, due: 'week' }, '2026-01-05')).toBe(true);
    expect(matches(t, { ...NO_FILTER, due: 'overdue' }, '2026-02-01')).toBe(false);
    expect(matches({ ...t, status: 0 }, { ...NO_FILTER, due: 'overdue' }, '2026-02-01')).toBe(true);
    expect(matches(t, { ...NO_FILTER, due: 'none' }, '2026-01-01')).toBe(false);
  });
});
