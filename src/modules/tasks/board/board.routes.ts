import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { orderToInt } from '../../../platform/schemas.js';
import { TaskParams, TaskWithHistorySchema } from '../tasks.schemas.js';
import * as S from './board.schemas.js';
import * as board from './board.service.js';

const tags = ['Kanban task actions'];

export default async function boardRoutes(app: App): Promise<void> {
  app.post(
    '/tasks/move',
    {
      schema: {
        tags,
        summary: 'Move tasks into a column',
        description:
          'Places the tasks at `order` (default: the end) in the given order; the `order` values both columns show stay dense (0..n-1). A task sits in one column per project: ' +
          'moving into a column of a project it is already in replaces that column; moving into another project relocates it (it leaves `fromStageId`, ' +
          'by default its column in the target project, else its home column, and the home flag travels with it). Column limits apply (400 STAGE_TASKS_LIMIT).',
        body: S.MoveTasksBody,
        response: { 200: S.MoveTasksResult },
      },
    },
    (request) =>
      write(app, request, (ctx) =>
        board.moveTasks(ctx, { ...request.body, order: orderToInt(request.body.order) }),
      ),
  );

  app.patch(
    '/tasks/:taskId/archive',
    {
      schema: {
        tags,
        summary: 'Send a task to the archive (own tasks as member, any as editor)',
        description: 'The task leaves every board (its columns close ranks) and shows only in the archive lists. `stageId` is a column the task sits in.',
        params: TaskParams,
        body: S.ArchiveBody,
        response: { 200: S.ArchiveResult },
      },
    },
    (request) => write(app, request, (ctx) => board.archiveTask(ctx, request.params.taskId, request.body)),
  );

  app.patch(
    '/tasks/:taskId/restore',
    {
      schema: {
        tags,
        summary: 'Restore a task from the archive (own tasks as member, any as editor)',
        description: 'Back to the end of its columns, or of `stageId` when given (entering it as a move would). Column limits apply.',
        params: TaskParams,
        body: S.RestoreBody,
        response: { 200: TaskWithHistorySchema },
      },
      // Every field is optional, so a client may send no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (request) => write(app, request, (ctx) => board.restoreTask(ctx, request.params.taskId, request.body)),
  );
}
