import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, call, type Task } from '../api/client';
import { rangeQuery, type Range } from './range';

/** The reports answer JSON or CSV by `format`; these calls ask JSON, so the text form never arrives. */
const json = <T,>(answer: Promise<T>) => answer as Promise<Exclude<T, string>>;

export type Metric = 'total' | 'created' | 'finished' | 'rejected' | 'overdue';

const options = <T,>(key: readonly unknown[], fn: () => Promise<T>) =>
  // The last range's numbers stay on screen while the next range loads (no flash of "Loading").
  queryOptions({ queryKey: ['analytics', ...key], queryFn: fn, placeholderData: keepPreviousData, staleTime: 30_000 });

export const projectReportQuery = (projectId: number, r: Range) =>
  options(['project', projectId, 'report', r.from, r.to], () =>
    json(call(api.GET('/analytics/projects/{projectId}/report', { params: { path: { projectId }, query: rangeQuery(r) } }))),
  );

export const projectTaskReportQuery = (projectId: number, r: Range) =>
  options(['project', projectId, 'task-report', r.from, r.to], () =>
    json(call(api.GET('/analytics/projects/{projectId}/task-report', { params: { path: { projectId }, query: rangeQuery(r) } }))),
  );

export const flowQuery = (projectId: number, r: Range) =>
  options(['project', projectId, 'flow', r.from, r.to, r.interval], () =>
    json(call(api.GET('/analytics/projects/{projectId}/flow', { params: { path: { projectId }, query: { ...rangeQuery(r), interval: r.interval } } }))),
  );

export const spaceAnalyticsQuery = (spaceId: number, r: Range) =>
  options(['space', spaceId, r.from, r.to, r.interval], () =>
    json(call(api.GET('/analytics/spaces/{spaceId}', { params: { path: { spaceId }, query: { ...rangeQuery(r), interval: r.interval } } }))),
  );

export const spaceTaskReportQuery = (spaceId: number, r: Range) =>
  options(['space', spaceId, 'task-report', r.from, r.to], () =>
    json(call(api.GET('/analytics/spaces/{spaceId}/task-report', { params: { path: { spaceId }, query: rangeQuery(r) } }))),
  );

export const userTaskReportQuery = (userId: number, r: Range) =>
  options(['user', userId, 'task-report', r.from, r.to], () =>
    json(call(api.GET('/analytics/users/{userId}/task-report', { params: { path: { userId }, query: rangeQuery(r) } }))),
  );

export const userSeriesQuery = (userId: number, r: Range) =>
  options(['user', userId, 'series', r.from, r.to, r.interval], () =>
    json(call(api.GET('/analytics/users/{userId}/task-series', { params: { path: { userId }, query: { ...rangeQuery(r), interval: r.interval } } }))),
  );

export const membersReportQuery = (r: Range, spaceId: number | null) =>
  options(['members', r.from, r.to, spaceId], () =>
    json(call(api.GET('/analytics/members', { params: { query: { ...rangeQuery(r), limit: 500, ...(spaceId ? { spaceId } : {}) } } }))),
  );

/** A drill-down's page of tasks and how many there are in all (X-Total-Count). */
export interface TaskPage {
  tasks: Task[];
  total: number;
}

const DRILL_LIMIT = 200;

async function paged(request: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<TaskPage> {
  const answer = await request;
  const tasks = (await call(Promise.resolve(answer))) as Task[];
  return { tasks, total: Number(answer.response.headers.get('x-total-count') ?? tasks.length) };
}

export interface ProjectDrill {
  metric: Metric;
  stageId?: number;
  responsibleId?: number;
}

/** What a drill-down loads: the tasks behind one number, under a key of its own. */
export interface DrillQuery {
  queryKey: readonly unknown[];
  queryFn: () => Promise<TaskPage>;
}

export const projectDrillQuery = (projectId: number, r: Range, d: ProjectDrill): DrillQuery => ({
  queryKey: ['analytics', 'project', projectId, 'drill', r.from, r.to, d],
  queryFn: () => paged(api.GET('/analytics/projects/{projectId}/report/tasks', { params: { path: { projectId }, query: { ...rangeQuery(r), ...d, limit: DRILL_LIMIT } } })),
});

export const spaceDrillQuery = (spaceId: number, r: Range, d: { metric: Metric; projectId?: number }): DrillQuery => ({
  queryKey: ['analytics', 'space', spaceId, 'drill', r.from, r.to, d],
  queryFn: () => paged(api.GET('/analytics/spaces/{spaceId}/tasks', { params: { path: { spaceId }, query: { ...rangeQuery(r), ...d, limit: DRILL_LIMIT } } })),
});
