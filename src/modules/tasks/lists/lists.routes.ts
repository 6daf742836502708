import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { TaskSchema } from '../tasks.schemas.js';
import * as S from './lists.schemas.js';
import { listTasks } from './lists.service.js';

const TaskList = Type.Array(TaskSchema);

// The project's three task lists differ only in their view, query and summary.
const PROJECT_LISTS = [
  { path: '', view: 'board', query: S.ProjectTasksQuery, summary: "A project's board: its tasks (not archived) by column and position" },
  { path: '/archived', view: 'archived', query: S.ArchivedTasksQuery, summary: "A project's archived tasks, last archived first" },
  { path: '/closed', view: 'closed', query: S.ClosedTasksQuery, summary: "A project's finished and rejected tasks (not archived), last closed first" },
] as const;

export default async function taskListRoutes(app: App): Promise<void> {
  for (const list of PROJECT_LISTS) {
    app.get(
      `/projects/:projectId/tasks${list.path}`,
      { config: { readCache: true }, schema: { tags: ['Projects'], summary: list.summary, params: S.ProjectParams, querystring: list.query, response: { 200: TaskList } } },
      async (request, reply) => {
        const query = request.query as S.TaskListQuery;
        const result = await read(app, request, (ctx) => listTasks(ctx, { projectId: request.params.projectId }, list.view, query));
        setPageHeaders(request, reply, result.total, pageOf(query, 1000));
        return result.items;
      },
    );
  }

  app.get(
    '/spaces/:spaceId/tasks',
    {
      config: { readCache: true },
      schema: {
        tags: ['Kanban task actions'],
        summary: 'All tasks of a space (not archived): of its projects and of projects linked into it',
        params: S.SpaceParams,
        querystring: S.SpaceTasksQuery,
        response: { 200: TaskList },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => listTasks(ctx, { spaceId: request.params.spaceId }, 'board', request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query, 1000));
      return result.items;
    },
  );
}
