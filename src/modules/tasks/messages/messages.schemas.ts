import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../../platform/schemas.js';
import { Offset } from '../../../platform/http.js';

// Task chat (routes.md "Task properties" 14–21; Message form from "Resources not shown by the spec").

export const TEXT_MAX = 65_536;
export const FILES_MAX = 20;

export const AttachmentSchema = Type.Object(
  {
    id: Type.Integer({ description: 'the file id (upload), or the attachment’s own id (cloud-drive)' }),
    name: Type.String(),
    size: Type.Integer(),
    mimeType: Type.String(),
    link: Type.String({ description: 'authenticated download path (upload), or the file in the drive’s web view (cloud-drive)' }),
    source: Type.Union([Type.Literal('upload'), Type.Literal('cloud-drive')]),
    driveFileId: Nullable(Type.String({ description: 'the cloud-drive file id, for cloud-drive attachments' })),
  },
  { $id: 'MessageAttachment' },
);

export const ReactionSchema = Type.Object(
  {
    emoji: Type.String(),
    count: Type.Integer({ minimum: 1 }),
    userIds: Type.Array(Type.Integer(), { description: 'who reacted, first first' }),
  },
  { $id: 'MessageReaction' },
);

export const MessageSchema = Type.Object(
  {
    id: Type.Integer(),
    taskId: Type.Integer(),
    authorId: Nullable(Type.Integer({ description: 'null once the author’s account is gone' })),
    text: Type.String(),
    replyToId: Nullable(Type.Integer({ description: 'the message answered; null when it was deleted' })),
    attachments: Type.Array(AttachmentSchema),
    reactions: Type.Array(ReactionSchema, { description: 'one entry per emoji, in the order first used' }),
    mentions: Type.Array(Type.Integer(), { description: 'users mentioned with @[userId] who are members of a space holding the task' }),
    pinned: Type.Boolean(),
    editedAt: Nullable(DateTime()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Message' },
);
export type MessageDto = Static<typeof MessageSchema>;

export const MessageParams = Type.Object({ taskId: Id('task id'), messageId: Id('message id') });
export const ReactionParams = Type.Object({
  taskId: Id('task id'),
  messageId: Id('message id'),
  emoji: Type.String({ minLength: 1, maxLength: 32, description: 'the emoji, URL-encoded' }),
});

export const MessagesQuery = Type.Object({
  before: Type.Optional(Id('only messages older than this message id (the next page)')),
  pinned: Type.Optional(Type.Boolean({ description: 'true: only pinned messages; false: only unpinned' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
});
export type MessagesQueryInput = Static<typeof MessagesQuery>;

export const MessageText = Type.String({ maxLength: TEXT_MAX, description: '`@[userId]` mentions a member of the task’s space; may be empty only when files are attached' });

export const SendMessageBody = Type.Object({
  text: MessageText,
  replyToId: Type.Optional(Nullable(Id('a message of the same task'))),
  fileIds: Type.Optional(Type.Array(Id('file id'), { maxItems: FILES_MAX, uniqueItems: true, description: 'files of the organization the caller uploaded' })),
});
export type SendMessageInput = Static<typeof SendMessageBody>;

/** The form the document shows for a multipart send; the handler streams the parts itself. */
export const SendMessageForm = Type.Unsafe<undefined>({
  description: `multipart/form-data: \`text\`, optional \`replyToId\`, and up to ${FILES_MAX} files in \`files[]\``,
  properties: {
    text: { type: 'string' },
    replyToId: { type: 'integer' },
    'files[]': { type: 'array', items: { type: 'string', format: 'binary' } },
  },
  required: ['files[]'],
});

export const EditTextBody = Type.Object({ text: MessageText });
export const PinnedBody = Type.Object({ pinned: Type.Boolean() });
export const ReactionBody = Type.Object({ emoji: Type.String({ minLength: 1, maxLength: 32, description: 'one Unicode emoji' }) });

export const HistoryQuery = Type.Object({
  type: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}(,[0-9]{1,2})*$', description: 'comma-separated history types, e.g. 4,11' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});
