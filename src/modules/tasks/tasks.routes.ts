import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import * as S from './tasks.schemas.js';
import * as tasks from './tasks.service.js';
import boardRoutes from './board/board.routes.js';
import taskListRoutes from './lists/lists.routes.js';
import taskExportRoutes from './export/export.routes.js';

const tags = ['Kanban task actions'];

export default async function taskRoutes(app: App): Promise<void> {
  app.post(
    '/tasks',
    {
      schema: {
        tags,
        summary: 'Create a task in a column',
        description: '`order` is the position in the column (default: the end); assignees must be members of a space holding the project. Column limits apply (400 STAGE_TASKS_LIMIT).',
        body: S.CreateTaskBody,
        response: { 201: S.TaskWithHistorySchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => tasks.createTask(ctx, request.body))),
  );

  app.get(
    '/tasks/:taskId',
    { config: { readCache: true }, schema: { tags, summary: 'Get a task (full form)', params: S.TaskParams, response: { 200: S.TaskSchema } } },
    (request) => read(app, request, (ctx) => tasks.getTask(ctx, request.params.taskId)),
  );

  app.delete(
    '/tasks/:taskId',
    { schema: { tags, summary: 'Delete a task for good (own tasks as member, any as editor)', params: S.TaskParams, response: { 204: Type.Null({ description: 'deleted' }) } } },
    async (request, reply) => {
      await write(app, request, (ctx) => tasks.deleteTask(ctx, request.params.taskId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/tasks/:taskId/color',
    {
      schema: {
        tags: ['Task properties'],
        summary: 'Set, replace or reset (""/null) the colour of a task',
        params: S.TaskParams,
        body: S.ColorBody,
        response: { 200: S.ColorTaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => tasks.setTaskColor(ctx, request.params.taskId, request.body.color)),
  );

  app.patch(
    '/tasks/:taskId/set-plan-time',
    {
      schema: {
        tags: ['Time tracking'],
        summary: 'Set the planned time of a task (hours); answers 201 as the spec does',
        params: S.TaskParams,
        body: S.PlanTimeBody,
        response: { 201: S.TaskWithHistorySchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => tasks.setTaskPlanTime(ctx, request.params.taskId, request.body.planTime))),
  );

  app.post(
    '/tasks/:taskId/inspetor',
    {
      schema: {
        tags: ['Inspectors'],
        summary: 'Add an inspector (reviewer) to a task',
        'x-developing': true,
        params: S.TaskParams,
        body: S.InspectorBody,
        response: { 201: S.TaskWithHistorySchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => tasks.addTaskInspector(ctx, request.params.taskId, request.body.inspectorId))),
  );

  await boardRoutes(app);
  await taskListRoutes(app);
  await taskExportRoutes(app);
}
