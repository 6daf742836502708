import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { TaskWithHistorySchema } from '../tasks.schemas.js';
import * as S from './inspectors.schemas.js';
import * as inspectors from './inspectors.service.js';

const tags = ['Inspectors'];

/** Update and remove; add (the spec endpoint) lives with the task routes. */
export default async function inspectorRoutes(app: App): Promise<void> {
  app.patch(
    '/tasks/:taskId/inspetor/:inspectorId/status',
    {
      schema: {
        tags,
        summary: 'Set your verdict as the task’s inspector (0 waiting, 1 approved, 2 rejected)',
        description: '`inspectorId` is the inspector’s user id; only that user may set it.',
        params: S.InspectorParams,
        body: S.InspectorStatusBody,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => inspectors.setInspectorStatus(ctx, request.params.taskId, request.params.inspectorId, request.body)),
  );

  app.delete(
    '/tasks/:taskId/inspetor/:inspectorId',
    {
      schema: {
        tags,
        summary: 'Remove an inspector from a task',
        params: S.InspectorParams,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => inspectors.removeInspector(ctx, request.params.taskId, request.params.inspectorId)),
  );
}
