import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { TaskSchema } from '../tasks.schemas.js';
import * as S from './lists.schemas.js';
import { listTasks } from './lists.service.js';

const TaskList = Type.Array(TaskSchema);

export default async function taskListRoutes(app: App): Promise<void> {
  app.get(
    '/projects/:projectId/tasks',
    {
      schema: {
        tags: ['Projects'],
        summary: "A project's board: its tasks (not archived) by column and position",
        params: S.ProjectParams,
        querystring: S.ProjectTasksQuery,
        response: { 200: TaskList },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => listTasks(ctx, { projectId: request.params.projectId }, 'board', request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query, 1000));
      return result.items;
    },
  );

  app.get(
    '/projects/:projectId/tasks/archived',
    {
      schema: {
        tags: ['Projects'],
        summary: "A project's archived tasks, last archived first",
        params: S.ProjectParams,
        querystring: S.ArchivedTasksQuery,
        response: { 200: TaskList },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => listTasks(ctx, { projectId: request.params.projectId }, 'archived', request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query, 1000));
      return result.items;
    },
  );

  app.get(
    '/projects/:projectId/tasks/closed',
    {
      schema: {
        tags: ['Projects'],
        summary: "A project's finished and rejected tasks (not archived), last closed first",
        params: S.ProjectParams,
        querystring: S.ClosedTasksQuery,
        response: { 200: TaskList },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => listTasks(ctx, { projectId: request.params.projectId }, 'closed', request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query, 1000));
      return result.items;
    },
  );

  app.get(
    '/spaces/:spaceId/tasks',
    {
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
