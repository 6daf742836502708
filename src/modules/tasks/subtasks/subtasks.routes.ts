import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { orderToInt } from '../../../platform/schemas.js';
import { SubtaskSchema, TaskParams, TaskWithHistorySchema } from '../tasks.schemas.js';
import { showSubtaskOnBoard } from './child-task.service.js';
import * as S from './subtasks.schemas.js';
import * as subtasks from './subtasks.service.js';

const tags = ['Task properties'];

export default async function subtaskRoutes(app: App): Promise<void> {
  app.get(
    '/tasks/:taskId/subtasks',
    { schema: { tags, summary: 'The subtasks (checklist) of a task, in order', params: TaskParams, querystring: S.SubtasksQuery, response: { 200: Type.Array(SubtaskSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query, 500);
      const result = await read(app, request, (ctx) => subtasks.listSubtasks(ctx, request.params.taskId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/tasks/:taskId/subtasks',
    {
      schema: {
        tags,
        summary: 'Add a subtask (history 11)',
        description: '`order` is the position in the checklist (default: the end); the others are renumbered densely.',
        params: TaskParams,
        body: S.CreateSubtaskBody,
        response: { 201: TaskWithHistorySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await write(app, request, (ctx) => subtasks.createSubtask(ctx, request.params.taskId, { name: request.body.name, order: orderToInt(request.body.order) }))),
  );

  app.patch(
    '/tasks/:taskId/subtasks/:subtaskId/name',
    { schema: { tags, summary: 'Rename a subtask (history 11)', params: S.SubtaskParams, body: S.SubtaskNameBody, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => subtasks.renameSubtask(ctx, request.params.taskId, request.params.subtaskId, request.body.name)),
  );

  app.post(
    '/tasks/:taskId/subtasks/:subtaskId/child-task',
    {
      schema: {
        tags,
        summary: 'Show a subtask on the board as a linked child task (history 11)',
        description:
          'Creates a task named like the subtask in `stageId` (S:member in its project; the column limit applies, 400 STAGE_TASKS_LIMIT) and answers it. ' +
          'The child lists the task in `parentTaskIds`; from then on checking the subtask finishes the child (status 1) and finishing or reopening the child checks or unchecks the subtask. ' +
          '409 when the subtask is already on the board.',
        params: S.SubtaskParams,
        body: S.ChildTaskBody,
        response: { 201: TaskWithHistorySchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await write(app, request, (ctx) => showSubtaskOnBoard(ctx, request.params.taskId, request.params.subtaskId, request.body.stageId))),
  );

  app.patch(
    '/tasks/:taskId/subtasks/:subtaskId/order',
    { schema: { tags, summary: 'Move a subtask to a position in the checklist (history 11)', params: S.SubtaskParams, body: S.SubtaskOrderBody, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => subtasks.moveSubtask(ctx, request.params.taskId, request.params.subtaskId, Number(request.body.order))),
  );

  app.patch(
    '/tasks/:taskId/subtasks/:subtaskId/is-checked',
    {
      schema: {
        tags,
        summary: 'Check or uncheck a subtask (history 11)',
        description: 'A linked child task is finished (status 1) or, when done, reopened (status 0) in the same transaction, with its own status history record (4).',
        params: S.SubtaskParams,
        body: S.IsCheckedBody,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => subtasks.setSubtaskChecked(ctx, request.params.taskId, request.params.subtaskId, request.body.isChecked)),
  );

  app.delete(
    '/tasks/:taskId/subtasks/:subtaskId',
    {
      schema: {
        tags,
        summary: 'Delete a subtask (history 11)',
        description: 'A linked child task stays on its board and is no longer a child.',
        params: S.SubtaskParams,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => subtasks.deleteSubtask(ctx, request.params.taskId, request.params.subtaskId)),
  );
}
