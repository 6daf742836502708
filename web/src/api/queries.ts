import { queryOptions } from '@tanstack/react-query';
import { api, call } from './client';

/** Query keys and loaders in one place, so live updates and mutations name the same caches. */
export const keys = {
  me: ['me'] as const,
  organization: ['organization'] as const,
  organizations: ['organizations'] as const,
  spaces: ['spaces'] as const,
  groups: ['space-groups'] as const,
  projects: ['projects'] as const,
  space: (id: number) => ['space', id] as const,
  spaceProjects: (id: number) => ['space', id, 'projects'] as const,
  spaceMembers: (id: number) => ['space', id, 'members'] as const,
  board: (id: number) => ['board', id] as const,
  archived: (projectId: number) => ['archived', projectId] as const,
  labels: ['labels'] as const,
  task: (id: number) => ['task', id] as const,
  taskPart: (id: number, part: 'description' | 'subtasks' | 'messages' | 'history' | 'time') => ['task', id, part] as const,
  timers: ['timers'] as const,
};

export const meQuery = queryOptions({ queryKey: keys.me, queryFn: () => call(api.GET('/user')) });
export const organizationQuery = queryOptions({ queryKey: keys.organization, queryFn: () => call(api.GET('/user/organization')) });
export const organizationsQuery = queryOptions({ queryKey: keys.organizations, queryFn: () => call(api.GET('/user/organizations', { params: { query: { limit: 100 } } })) });
export const spacesQuery = queryOptions({ queryKey: keys.spaces, queryFn: () => call(api.GET('/spaces', { params: { query: { limit: 500 } } })) });
export const groupsQuery = queryOptions({ queryKey: keys.groups, queryFn: () => call(api.GET('/space-groups', { params: { query: { limit: 500 } } })) });
export const projectsQuery = queryOptions({ queryKey: keys.projects, queryFn: () => call(api.GET('/projects', { params: { query: { limit: 500 } } })) });
export const labelsQuery = queryOptions({ queryKey: keys.labels, queryFn: () => call(api.GET('/labels', { params: { query: { limit: 500 } } })) });

export const spaceQuery = (spaceId: number) =>
  queryOptions({ queryKey: keys.space(spaceId), queryFn: () => call(api.GET('/spaces/{spaceId}', { params: { path: { spaceId } } })) });

export const spaceProjectsQuery = (spaceId: number) =>
  queryOptions({ queryKey: keys.spaceProjects(spaceId), queryFn: () => call(api.GET('/spaces/{spaceId}/projects', { params: { path: { spaceId }, query: { limit: 500 } } })) });

export const spaceMembersQuery = (spaceId: number) =>
  queryOptions({ queryKey: keys.spaceMembers(spaceId), queryFn: () => call(api.GET('/spaces/{spaceId}/members', { params: { path: { spaceId }, query: { limit: 500 } } })) });

/** A project's archived tasks, last archived first (the archive panel; a restore reloads it). */
export const archivedQuery = (projectId: number) =>
  queryOptions({ queryKey: keys.archived(projectId), queryFn: () => call(api.GET('/projects/{projectId}/tasks/archived', { params: { path: { projectId }, query: { limit: 500 } } })) });

export const boardQuery = (projectId: number) =>
  queryOptions({
    queryKey: keys.board(projectId),
    queryFn: async () => {
      const path = { projectId };
      const [project, tasks] = await Promise.all([
        call(api.GET('/projects/{projectId}', { params: { path } })),
        call(api.GET('/projects/{projectId}/tasks', { params: { path, query: { limit: 10_000 } } })),
      ]);
      return { project, tasks };
    },
  });

export const taskQuery = (taskId: number) =>
  queryOptions({ queryKey: keys.task(taskId), queryFn: () => call(api.GET('/tasks/{taskId}', { params: { path: { taskId } } })) });
