import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { Paging } from '../../platform/http.js';

/** Notification (routes.md "Resources not shown by the spec"). */
export const NotificationSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.String({
      description:
        'what caused it: task.assigned, task.member-added, task.status, task.due, message.mention, message.created (a new comment on a task you follow), inspector.requested, inspector.verdict, reglament.mandatory, webhook.disabled',
    }),
    text: Type.String({ description: 'a short sentence to show' }),
    taskId: Nullable(Type.Integer()),
    projectId: Nullable(Type.Integer()),
    spaceId: Nullable(Type.Integer()),
    actorId: Nullable(Type.Integer({ description: 'who caused it; null for the service itself (due dates, disabled webhooks)' })),
    read: Type.Boolean(),
    archived: Type.Boolean(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Notification' },
);
export type NotificationDto = Static<typeof NotificationSchema>;

export const NotificationParams = Type.Object({ notificationId: Id('notification id') });
export const TaskParams = Type.Object({ taskId: Id('task id') });

export const ListQuery = Type.Object({
  read: Type.Optional(Type.Boolean({ description: 'only read (true) or only unread (false) ones' })),
  taskId: Type.Optional(Id('only those about this task')),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only this type' })),
  ...Paging().properties,
});
export const ArchivedQuery = Type.Object({ taskId: Type.Optional(Id('only those about this task')), ...Paging().properties });

export const ReadBody = Type.Object({ read: Type.Boolean({ description: 'true marks it read, false unread' }) });
export const ReadManyBody = Type.Object({
  ids: Type.Optional(Type.Array(Id(), { maxItems: 500, description: 'the notifications to mark read; left out: every unread one' })),
});

export const CountSchema = Type.Object({ count: Type.Integer({ description: 'unarchived notifications about the task' }) });
export const UpdatedSchema = Type.Object({ updated: Type.Integer({ description: 'notifications changed' }) });
export const DeletedSchema = Type.Object({ deleted: Type.Integer({ description: 'notifications deleted' }) });
