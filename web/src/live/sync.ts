import type { QueryClient } from '@tanstack/react-query';
import type { Envelope, Task } from '../api/client';
import { keys } from '../api/queries';
import { applyEvent, type BoardData } from '../board/model';

// Small lists the sidebar and pickers show: reloaded when one of their events arrives.
const RELOADS: Array<[prefix: string, key: readonly unknown[]]> = [
  ['space.', keys.spaces],
  ['space.', keys.groups],
  ['project.', keys.projects],
  ['label.', keys.labels],
  ['organization.', keys.organization],
  ['timer.', keys.timers],
  // A project's archive list (the panel): what leaves or returns to a board.
  ['task.archived', ['archived']],
  ['task.restored', ['archived']],
  ['task.deleted', ['archived']],
];

/**
 * Routes one event to the caches it changes: boards and open tasks are patched in place from the
 * payload (no refetch); a task's chat, history or time list reloads alone; sidebar lists reload.
 */
export function applyToCache(client: QueryClient, e: Envelope): void {
  for (const [prefix, key] of RELOADS) if (e.type.startsWith(prefix)) void client.invalidateQueries({ queryKey: key });
  if (e.type.startsWith('space.') && e.spaceId) void client.invalidateQueries({ queryKey: keys.space(e.spaceId) });
  if (e.type.startsWith('project.') && e.spaceId) void client.invalidateQueries({ queryKey: keys.spaceProjects(e.spaceId) });

  for (const [key, board] of client.getQueriesData<BoardData>({ queryKey: ['board'] })) {
    if (!board) continue;
    const next = applyEvent(board, e);
    if (next === null) void client.invalidateQueries({ queryKey: key });
    else if (next !== board) client.setQueryData(key, next);
  }

  const taskId = e.taskId;
  if (!taskId || !client.getQueryData(keys.task(taskId))) return;
  const payload = e.payload as { task?: Task; changes?: string[] };
  const changed = (...fields: string[]) => e.type === 'task.updated' && fields.some((f) => payload.changes?.includes(f));
  if (e.type === 'task.deleted') client.removeQueries({ queryKey: keys.task(taskId) });
  else if (e.type.startsWith('task.') && payload.task) client.setQueryData(keys.task(taskId), payload.task);
  if (e.type.startsWith('task.')) void client.invalidateQueries({ queryKey: keys.taskPart(taskId, 'history') });
  if (changed('list', 'checklist')) void client.invalidateQueries({ queryKey: keys.taskPart(taskId, 'subtasks') });
  if (changed('description', 'hasDescription')) void client.invalidateQueries({ queryKey: keys.taskPart(taskId, 'description') });
  if (e.type.startsWith('message.')) void client.invalidateQueries({ queryKey: keys.taskPart(taskId, 'messages') });
  if (e.type.startsWith('time-record.') || e.type.startsWith('timer.')) void client.invalidateQueries({ queryKey: keys.taskPart(taskId, 'time') });
}
