import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { Nullable } from '../../platform/schemas.js';
import { registerDueJob } from './notifications.due.js';
import { notificationPipeline } from './notifications.pipeline.js';
import * as S from './notifications.schemas.js';
import * as notifications from './notifications.service.js';

const tags = ['Notifications'];
const one = { 200: S.NotificationSchema };

async function notificationRoutes(app: App): Promise<void> {
  app.events.addListener(notificationPipeline);
  registerDueJob(app);

  app.get(
    '/notifications',
    { schema: { tags, summary: 'Unarchived notifications, newest first', querystring: S.ListQuery, response: { 200: Type.Array(S.NotificationSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const { read: isRead, taskId, type } = request.query;
      const result = await read(app, request, (ctx) => notifications.listNotifications(ctx, { archived: false, read: isRead, taskId, type, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.get(
    '/notifications/archived',
    { schema: { tags, summary: 'Archived notifications, newest first', querystring: S.ArchivedQuery, response: { 200: Type.Array(S.NotificationSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => notifications.listNotifications(ctx, { archived: true, taskId: request.query.taskId, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.get(
    '/notifications/first-unread',
    { schema: { tags, summary: 'The newest unread, unarchived notification, or null', response: { 200: Nullable(S.NotificationSchema) } } },
    (request) => read(app, request, (ctx) => notifications.firstUnread(ctx)),
  );

  app.get(
    '/notifications/tasks/:taskId/count',
    { schema: { tags, summary: 'How many unarchived notifications are about a task', params: S.TaskParams, response: { 200: S.CountSchema } } },
    (request) => read(app, request, (ctx) => notifications.countForTask(ctx, request.params.taskId)),
  );

  app.patch(
    '/notifications/tasks/:taskId/archive',
    { schema: { tags, summary: 'Archive every unarchived notification about a task', params: S.TaskParams, response: { 200: S.UpdatedSchema } } },
    (request) => write(app, request, (ctx) => notifications.archiveTask(ctx, request.params.taskId)),
  );

  app.patch(
    '/notifications/tasks/:taskId/read',
    { schema: { tags, summary: 'Mark every notification about a task read', params: S.TaskParams, response: { 200: S.UpdatedSchema } } },
    (request) => write(app, request, (ctx) => notifications.markTaskRead(ctx, request.params.taskId)),
  );

  app.patch(
    '/notifications/read',
    {
      schema: { tags, summary: 'Mark the given notifications read (none given: all)', body: S.ReadManyBody, response: { 200: S.UpdatedSchema } },
      // "None given" includes no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (request) => write(app, request, (ctx) => notifications.markRead(ctx, request.body.ids)),
  );

  app.patch(
    '/notifications/archive',
    { schema: { tags, summary: 'Archive every unarchived notification', response: { 200: S.UpdatedSchema } } },
    (request) => write(app, request, (ctx) => notifications.archiveAll(ctx)),
  );

  app.delete(
    '/notifications/archived',
    { schema: { tags, summary: 'Delete every archived notification', response: { 200: S.DeletedSchema } } },
    (request) => write(app, request, (ctx) => notifications.deleteArchived(ctx)),
  );

  app.patch(
    '/notifications/:notificationId/read',
    { schema: { tags, summary: 'Mark a notification read or unread', params: S.NotificationParams, body: S.ReadBody, response: one } },
    (request) => write(app, request, (ctx) => notifications.setRead(ctx, request.params.notificationId, request.body.read)),
  );

  app.patch(
    '/notifications/:notificationId/archive',
    { schema: { tags, summary: 'Archive a notification', params: S.NotificationParams, response: one } },
    (request) => write(app, request, (ctx) => notifications.setArchived(ctx, request.params.notificationId, true)),
  );

  app.patch(
    '/notifications/:notificationId/restore',
    { schema: { tags, summary: 'Bring an archived notification back', params: S.NotificationParams, response: one } },
    (request) => write(app, request, (ctx) => notifications.setArchived(ctx, request.params.notificationId, false)),
  );

  app.delete(
    '/notifications/:notificationId',
    { schema: { tags, summary: 'Delete a notification', params: S.NotificationParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => notifications.deleteNotification(ctx, request.params.notificationId));
      return reply.code(204).send(null);
    },
  );
}

// Registered on the root instance (what fastify-plugin does), not in a child context: the due job
// must be found by runJob/startJobs, which are given the root app.
(notificationRoutes as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export default notificationRoutes;
