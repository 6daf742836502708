import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { HistorySchema } from '../history/history.schemas.js';
import * as S from './actions.schemas.js';
import * as lists from './lists.service.js';

const tags = ['Kanban task actions'];

/** Sets the paging headers of a list and answers its items. */
function paged<T>(request: FastifyRequest, reply: FastifyReply, defaultLimit: number, page: lists.Page<T>): T[] {
  setPageHeaders(request, reply, page.total, pageOf(request.query as { limit?: number; offset?: number }, defaultLimit));
  return page.items;
}

const VISIBLE = 'Only tasks on boards of spaces the caller can read, not archived.';

export default async function actionListRoutes(app: App): Promise<void> {
  app.get(
    '/tasks',
    {
      schema: { tags, summary: 'All tasks of the organization, newest first', description: VISIBLE, querystring: S.OrganizationTasksQuery, response: { 200: S.TaskList } },
    },
    async (request, reply) => paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listOrganizationTasks(ctx, request.query))),
  );

  app.get(
    '/users/:userId/tasks',
    {
      schema: { tags, summary: "A user's assigned tasks, newest first", description: VISIBLE, params: S.UserParams, querystring: S.AssigneeTasksQuery, response: { 200: S.TaskList } },
    },
    async (request, reply) => paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listAssigneeTasks(ctx, request.params.userId, request.query))),
  );

  app.get(
    '/users/:userId/tasks/finished-today',
    {
      schema: {
        tags,
        summary: "A user's assigned tasks done today (in tz), last finished first",
        description: VISIBLE,
        params: S.UserParams,
        querystring: S.TodayQuery,
        response: { 200: S.TaskList },
      },
    },
    async (request, reply) =>
      paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listAssigneeFinishedToday(ctx, request.params.userId, request.query))),
  );

  app.get(
    '/projects/:projectId/tasks/finished-today',
    {
      schema: {
        tags: ['Projects'],
        summary: "A project's tasks done today (in tz), last finished first",
        params: S.ProjectParams,
        querystring: S.TodayQuery,
        response: { 200: S.TaskList },
      },
    },
    async (request, reply) =>
      paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listProjectFinishedToday(ctx, request.params.projectId, request.query))),
  );

  app.get(
    '/user/tasks/counts',
    { schema: { tags, summary: "The caller's task counts for the home page", description: VISIBLE, querystring: S.CountsQuery, response: { 200: S.CountsSchema } } },
    (request) => read(app, request, (ctx) => lists.countMyTasks(ctx, request.query.tz)),
  );

  app.get(
    '/user/tasks/created',
    { schema: { tags, summary: 'Tasks the caller created, newest first', description: VISIBLE, querystring: S.MyTasksQuery, response: { 200: S.TaskList } } },
    async (request, reply) => paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listCreatedTasks(ctx, request.query))),
  );

  app.get(
    '/user/tasks/participating',
    {
      schema: {
        tags,
        summary: 'Tasks the caller takes part in (assignee, member or inspector), newest first',
        description: VISIBLE,
        querystring: S.MyTasksQuery,
        response: { 200: S.TaskList },
      },
    },
    async (request, reply) => paged(request, reply, S.TASK_PAGE, await read(app, request, (ctx) => lists.listParticipatingTasks(ctx, request.query))),
  );

  app.get(
    '/users/:userId/task-history',
    {
      schema: {
        tags,
        summary: "What a user did to tasks (history records), newest first (one's own, or anyone's as organization owner or admin)",
        description: 'Only records of tasks the caller can read.',
        params: S.UserParams,
        querystring: S.HistoryQuery,
        response: { 200: Type.Array(HistorySchema) },
      },
    },
    async (request, reply) => paged(request, reply, 50, await read(app, request, (ctx) => lists.listUserHistory(ctx, request.params.userId, request.query))),
  );
}
