import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { TaskParams, TaskWithHistorySchema } from '../tasks.schemas.js';
import * as S from './properties.schemas.js';
import * as fields from './fields.service.js';

const tags = ['Task properties'];
const ok = { 200: TaskWithHistorySchema };

/** name, description, importance, status and dates: one PATCH per property, each answering TH. */
export default async function fieldRoutes(app: App): Promise<void> {
  app.patch(
    '/tasks/:taskId/name',
    { schema: { tags, summary: 'Rename a task (history 1)', params: TaskParams, body: S.NameBody, response: ok } },
    (request) => write(app, request, (ctx) => fields.renameTask(ctx, request.params.taskId, request.body.name)),
  );

  app.get(
    '/tasks/:taskId/description',
    { schema: { tags, summary: 'Get the description of a task', params: TaskParams, response: { 200: S.DescriptionSchema } } },
    (request) => read(app, request, (ctx) => fields.getTaskDescription(ctx, request.params.taskId)),
  );

  app.patch(
    '/tasks/:taskId/description',
    {
      bodyLimit: S.DESCRIPTION_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Change the description (stored as given, ≤ 1 MiB UTF-8; null or "" clears it; history 2)',
        params: TaskParams,
        body: S.DescriptionBody,
        response: ok,
      },
    },
    (request) => write(app, request, (ctx) => fields.setTaskDescription(ctx, request.params.taskId, request.body.description)),
  );

  app.patch(
    '/tasks/:taskId/importance',
    { schema: { tags, summary: 'Set the importance, -1..3 (history 6)', params: TaskParams, body: S.ImportanceBody, response: ok } },
    (request) => write(app, request, (ctx) => fields.setTaskImportance(ctx, request.params.taskId, request.body.importance)),
  );

  app.patch(
    '/tasks/:taskId/status',
    {
      schema: {
        tags,
        summary: 'Change the status, 0..3 (history 4)',
        description: 'Every change of status sets dateStatusChanged. `blockReason` goes with status 3 (needs attention) only and is kept when omitted; other statuses clear it.',
        params: TaskParams,
        body: S.StatusBody,
        response: ok,
      },
    },
    (request) => write(app, request, (ctx) => fields.setTaskStatus(ctx, request.params.taskId, request.body)),
  );

  app.patch(
    '/tasks/:taskId/dates',
    {
      schema: {
        tags,
        summary: 'Change the dates (history 5)',
        description: 'Omitted fields keep their value, null clears one. The resulting begin must not be after the end (400 DATE_RANGE); a date without time spans its whole UTC day.',
        params: TaskParams,
        body: S.DatesBody,
        response: ok,
      },
    },
    (request) => write(app, request, (ctx) => fields.setTaskDates(ctx, request.params.taskId, request.body)),
  );
}
