import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id, Name, Nullable } from '../../../platform/schemas.js';

// Request and response forms of routes.md "Task properties" (the answers are tasks.schemas' TH).

/** Descriptions hold up to 1 MiB of UTF-8 (conventions.md); the schema counts characters, the service bytes. */
export const DESCRIPTION_MAX_BYTES = 1_048_576;
/** A description's JSON body may be larger than its text (escapes), so its route allows twice that. */
export const DESCRIPTION_BODY_LIMIT = 2 * DESCRIPTION_MAX_BYTES + 64 * 1024;

export const TaskLabelParams = Type.Object({ taskId: Id('task id'), labelId: Id('label id') });
export const TaskUserParams = Type.Object({ taskId: Id('task id'), userId: Id('user id') });

export const LabelBody = Type.Object({ labelId: Id('a label of the organization') });
export const UserBody = Type.Object({ userId: Id('a member of a space holding the task') });
export const AssigneesBody = Type.Object({
  responsibleUserId: Type.Array(Id('user id'), {
    maxItems: 100,
    description: 'the whole new set of assignees (duplicates are ignored; [] removes everyone)',
  }),
});

export const DescriptionBody = Type.Object({
  description: Nullable(Type.String({ maxLength: DESCRIPTION_MAX_BYTES, description: 'stored as given; null or "" clears it (≤ 1 MiB UTF-8)' })),
});
export const DescriptionSchema = Type.Object(
  {
    taskId: Type.Integer(),
    description: Nullable(Type.String({ description: 'null when the task has none' })),
    updatedAt: DateTime('when the description last changed (the task creation when never)'),
  },
  { $id: 'TaskDescription' },
);
export type DescriptionDto = Static<typeof DescriptionSchema>;

export const NameBody = Type.Object({ name: Name('new task name, 1-500 characters (trimmed)') });
export const ImportanceBody = Type.Object({
  importance: Type.Integer({ minimum: -1, maximum: 3, description: '-1 not set, 0 low, 1 medium, 2 high, 3 critical' }),
});
export const StatusBody = Type.Object({
  status: Type.Integer({ minimum: 0, maximum: 3, description: '0 in work, 1 done, 2 rejected, 3 needs attention' }),
  blockReason: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 2000, description: 'why the task needs attention; only with status 3 (kept when omitted)' })),
  ),
});
export type StatusInput = Static<typeof StatusBody>;

export const DatesBody = Type.Object(
  {
    dateBegin: Type.Optional(Nullable(DateTime())),
    dateEnd: Type.Optional(Nullable(DateTime())),
    dateBeginWithoutTime: Type.Optional(Nullable(DateOnly())),
    dateEndWithoutTime: Type.Optional(Nullable(DateOnly())),
  },
  { minProperties: 1, description: 'fields left out keep their value; null clears one' },
);
export type DatesInput = Static<typeof DatesBody>;

export const CoverFileBody = Type.Object({ fileId: Id('an image file of the organization (PNG, JPEG, WebP, GIF or AVIF)') });
export type CoverFileInput = Static<typeof CoverFileBody>;
