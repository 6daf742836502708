import { api, type Schemas, type Task } from '../api/client';
import { pageOf, pagedQuery } from '../common/paging';

export type ReglamentHit = Schemas['ReglamentListItem'];

/** What the search page asks: the words, and optionally one space and the archive instead of the boards. */
export interface SearchFilter {
  q: string;
  spaceId: number | null;
  archived: boolean;
}

const PAGE = 20;
const inSpace = (f: SearchFilter) => (f.spaceId ? { spaceId: f.spaceId } : {});

export const taskSearchQuery = (f: SearchFilter) =>
  pagedQuery(['search', 'tasks', f], (offset) => pageOf(api.GET('/tasks/search', { params: { query: { q: f.q, archived: f.archived, limit: PAGE, offset, ...inSpace(f) } } }), offset));

export const reglamentSearchQuery = (f: SearchFilter) =>
  pagedQuery(['search', 'reglaments', f.q, f.spaceId], (offset) => pageOf(api.GET('/reglaments/search', { params: { query: { q: f.q, limit: PAGE, offset, ...inSpace(f) } } }), offset));

/** The filter in the page's address (`?q=…&space=…&archived=1`), so a search can be reloaded and shared. */
export function filterOf(params: URLSearchParams): SearchFilter {
  const space = Number(params.get('space'));
  return { q: (params.get('q') ?? '').trim(), spaceId: Number.isInteger(space) && space > 0 ? space : null, archived: params.get('archived') === '1' };
}

export function paramsOf(f: SearchFilter): Record<string, string> {
  return { q: f.q, ...(f.spaceId ? { space: String(f.spaceId) } : {}), ...(f.archived ? { archived: '1' } : {}) };
}

/** The board a task opens on: its home project (the pinned place), else the first board holding it. */
export const homeOf = (task: Pick<Task, 'stages'>) => task.stages.find((s) => s.pinned) ?? task.stages[0];

export function taskPath(task: Pick<Task, 'id' | 'stages'>): string | null {
  const place = homeOf(task);
  return place ? `/projects/${place.projectId}/tasks/${task.id}` : null;
}
