import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { TaskParams, TaskWithHistorySchema } from '../tasks.schemas.js';
import * as S from './properties.schemas.js';
import * as labels from './labels.service.js';
import * as people from './people.service.js';

const tags = ['Task properties'];

/** The task's sets: assignees, members and labels (routes.md "attach to task" shape). */
export default async function peopleRoutes(app: App): Promise<void> {
  app.post(
    '/tasks/:taskId/assignees',
    {
      schema: {
        tags,
        summary: 'Add an assignee (a member of a space holding the task; history 8)',
        description: 'Adding someone already assigned changes nothing and answers the same way.',
        params: TaskParams,
        body: S.UserBody,
        response: { 201: TaskWithHistorySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await write(app, request, (ctx) => people.addTaskPerson(ctx, 'assignees', request.params.taskId, request.body.userId))),
  );

  app.patch(
    '/tasks/:taskId/assignees',
    {
      schema: {
        tags,
        summary: 'Replace the assignees with the given set (history 8)',
        params: TaskParams,
        body: S.AssigneesBody,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => people.replaceTaskAssignees(ctx, request.params.taskId, request.body.responsibleUserId)),
  );

  app.delete(
    '/tasks/:taskId/assignees/:userId',
    { schema: { tags, summary: 'Remove an assignee (history 8)', params: S.TaskUserParams, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => people.removeTaskPerson(ctx, 'assignees', request.params.taskId, request.params.userId)),
  );

  app.post(
    '/tasks/:taskId/members',
    {
      schema: {
        tags,
        summary: 'Add a member (a member of a space holding the task; history 9)',
        params: TaskParams,
        body: S.UserBody,
        response: { 201: TaskWithHistorySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await write(app, request, (ctx) => people.addTaskPerson(ctx, 'members', request.params.taskId, request.body.userId))),
  );

  app.delete(
    '/tasks/:taskId/members/:userId',
    { schema: { tags, summary: 'Remove a member (history 9)', params: S.TaskUserParams, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => people.removeTaskPerson(ctx, 'members', request.params.taskId, request.params.userId)),
  );

  app.post(
    '/tasks/:taskId/labels',
    {
      schema: {
        tags,
        summary: 'Attach a label of the organization (400 REFERENCE_NOT_FOUND otherwise; history 10)',
        params: TaskParams,
        body: S.LabelBody,
        response: { 201: TaskWithHistorySchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => labels.attachTaskLabel(ctx, request.params.taskId, request.body.labelId))),
  );

  app.delete(
    '/tasks/:taskId/labels/:labelId',
    { schema: { tags, summary: 'Detach a label (history 10)', params: S.TaskLabelParams, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => labels.detachTaskLabel(ctx, request.params.taskId, request.params.labelId)),
  );
}
