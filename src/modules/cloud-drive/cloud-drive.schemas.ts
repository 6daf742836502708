import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { FILES_MAX, MessageText } from '../tasks/messages/messages.schemas.js';

/**
 * routes.md "Cloud-drive integration" (9 rows) with the CloudDriveIntegration and DriveFile forms.
 * Drive ids are strings; they go into provider URLs, so only the provider's own alphabet is taken.
 */

export const DriveFileId = (description = 'a cloud-drive file id') => Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description });

export const CloudDriveIntegrationSchema = Type.Object(
  {
    connected: Type.Boolean({ description: 'false: never connected, or the provider refused the stored authorization (connect again)' }),
    accountEmail: Nullable(Type.String({ description: 'the drive account, as the provider names it' })),
    connectedAt: Nullable(DateTime()),
    scopes: Type.Array(Type.String(), { description: 'OAuth scopes granted' }),
  },
  { $id: 'CloudDriveIntegration' },
);
export type CloudDriveIntegrationDto = Static<typeof CloudDriveIntegrationSchema>;

export const DriveFileSchema = Type.Object(
  {
    id: Type.String({ description: 'the drive’s file id' }),
    name: Type.String(),
    mimeType: Type.String(),
    size: Nullable(Type.Integer({ minimum: 0, description: 'bytes; null for folders and the provider’s native documents' })),
    isFolder: Type.Boolean(),
    modifiedAt: Nullable(DateTime()),
    webUrl: Nullable(Type.String({ description: 'the file in the drive’s own web view' })),
  },
  { $id: 'DriveFile' },
);
export type DriveFileDto = Static<typeof DriveFileSchema>;

export const AuthorizationUrlQuery = Type.Object({
  redirectUri: Type.Optional(Type.String({ maxLength: 2000, description: 'where the browser goes after the callback: a page on the app’s origin (APP_URL); default APP_URL' })),
});

export const AuthorizationUrlSchema = Type.Object(
  {
    url: Type.String({ description: 'the provider’s consent page: open it in the browser' }),
    state: Type.String({ description: 'signed, single use, valid 10 minutes' }),
    expiresAt: DateTime(),
  },
  { $id: 'CloudDriveAuthorizationUrl' },
);

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.String({ minLength: 1, maxLength: 2048 }),
  error: Type.Optional(Type.String({ maxLength: 200, description: 'set by the provider instead of code (access_denied)' })),
  scope: Type.Optional(Type.String({ maxLength: 4096 })),
  iss: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type CallbackInput = Static<typeof CallbackQuery>;

export const FilesQuery = Type.Object({
  folderId: Type.Optional(DriveFileId('only the files in this folder')),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'text the file name contains' })),
  pageToken: Type.Optional(Type.String({ maxLength: 2000, pattern: '^[A-Za-z0-9_.~=-]+$', description: 'the next page, from the previous page’s Link header' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
});
export type FilesQueryInput = Static<typeof FilesQuery>;

export const FileParams = Type.Object({ fileId: DriveFileId() });

const DriveFileIds = Type.Array(DriveFileId(), { maxItems: FILES_MAX, uniqueItems: true, description: 'files of the caller’s drive, attached as references' });

export const SendDriveMessageBody = Type.Object({
  text: Type.Optional(MessageText),
  driveFileIds: DriveFileIds,
  replyToId: Type.Optional(Nullable(Id('a message of the same task'))),
});
export type SendDriveMessageInput = Static<typeof SendDriveMessageBody>;

export const EditDriveMessageBody = Type.Object(
  {
    text: Type.Optional(MessageText),
    driveFileIds: Type.Optional(Type.Array(DriveFileId(), { maxItems: FILES_MAX, uniqueItems: true, description: 'replaces the message’s drive attachments' })),
  },
  { minProperties: 1 },
);
export type EditDriveMessageInput = Static<typeof EditDriveMessageBody>;

export const TaskMessageParams = Type.Object({ taskId: Id('task id'), messageId: Id('message id') });

/** The form the document shows for an upload; the handler streams the parts itself. */
export const UploadForm = Type.Unsafe<undefined>({
  description: `multipart/form-data: optional \`folderId\` (before the files), and up to ${FILES_MAX} files in \`files[]\``,
  properties: { folderId: { type: 'string' }, 'files[]': { type: 'array', items: { type: 'string', format: 'binary' } } },
  required: ['files[]'],
});
