import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import type { App } from '../../platform/types.js';
import { actorOf } from '../../platform/auth.js';
import { read, write } from '../../platform/context.js';
import { upload } from '../../platform/openapi.js';
import { MessageSchema } from '../tasks/messages/messages.schemas.js';
import { TaskParams } from '../tasks/tasks.schemas.js';
import { DriveClient, loadOAuth } from './drive.client.js';
import { requireConfigured } from './cloud-drive.policy.js';
import { contentDisposition } from './cloud-drive.presenter.js';
import * as S from './cloud-drive.schemas.js';
import * as drive from './cloud-drive.service.js';
import * as files from './cloud-drive.files.service.js';
import type { DriveDeps } from './cloud-drive.tokens.js';

const tags = ['Cloud-drive integration'];
const BASE = '/integrations/cloud-drive';
const OFF = ' Answers 409 CLOUD_DRIVE_NOT_CONFIGURED while the service has no CLOUD_DRIVE_CLIENT_ID and CLOUD_DRIVE_CLIENT_SECRET.';
const USES = ' 409 CLOUD_DRIVE_NOT_CONNECTED before a drive is connected; 409 CLOUD_DRIVE_RECONNECT once the provider refused the stored authorization.' + OFF;

export default async function cloudDriveRoutes(app: App): Promise<void> {
  let client: DriveClient | null = null;
  // Every route needs the OAuth client (checked after validation and authentication, as any refusal).
  app.addHook('preHandler', async () => {
    const { clientId, clientSecret } = requireConfigured(app.config);
    client ??= new DriveClient({ ...app.config, cloudDriveClientId: clientId, cloudDriveClientSecret: clientSecret }, await loadOAuth(), app.log);
  });
  const deps = (): DriveDeps => ({ app, client: client! });
  const session = (request: FastifyRequest): drive.Session => ({
    actor: actorOf(request),
    read: (fn) => read(app, request, fn),
    write: (fn) => write(app, request, fn),
  });

  app.get(
    BASE,
    { schema: { tags, summary: 'The caller’s cloud drive: connected or not, which account, which scopes (self)', description: OFF.trim(), response: { 200: S.CloudDriveIntegrationSchema } } },
    (request) => read(app, request, (ctx) => drive.getStatus(ctx)),
  );

  app.get(
    `${BASE}/authorization-url`,
    {
      schema: {
        tags,
        summary: 'Start connecting: the provider’s consent URL with PKCE and a signed state (self)',
        description:
          'Open `url` in the browser. `state` is signed, bound to the caller, single use and valid 10 minutes; the PKCE verifier never leaves the service. Scopes: `drive.file` (the files the service uploads) and `drive.metadata.readonly` (browsing and attaching).' + OFF,
        querystring: S.AuthorizationUrlQuery,
        response: { 200: S.AuthorizationUrlSchema },
      },
    },
    (request) => write(app, request, (ctx) => drive.createAuthorization(ctx, deps(), request.query.redirectUri)),
  );

  app.get(
    `${BASE}/callback`,
    {
      config: { public: true },
      // The URL carries the authorization code and state: no access-log lines (info) for this route.
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'The provider’s redirect after consent (public: the state is the credential)',
        description:
          'Exchanges the code (with the PKCE verifier) and stores the tokens encrypted, then redirects (302) to the app: `?cloudDrive=connected`, or `?cloudDrive=error&error=<reason>` (`access_denied` when the user declined). A forged, expired or already used state answers 400 CLOUD_DRIVE_STATE_INVALID and stores nothing.' + OFF,
        security: [],
        querystring: S.CallbackQuery,
        response: { 302: Type.Null({ description: 'redirect to APP_URL (or the redirectUri given) with the outcome' }) },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').redirect(await drive.completeAuthorization(deps(), request.query), 302),
  );

  app.delete(
    BASE,
    {
      schema: {
        tags,
        summary: 'Disconnect: revoke the grant at the provider and delete it here (self)',
        description:
          'The header `Cloud-Drive-Revoked: false` says the provider could not be reached: the integration is deleted here all the same (revoke it in the drive account’s settings). 404 when none is connected.' + OFF,
        response: { 204: Type.Null({ description: 'deleted; Cloud-Drive-Revoked: true or false' }) },
      },
    },
    async (request, reply) => {
      const { revoked } = await drive.disconnect(deps(), session(request));
      return reply.code(204).header('cloud-drive-revoked', String(revoked)).send(null);
    },
  );

  app.get(
    `${BASE}/files`,
    {
      schema: {
        tags,
        summary: 'Browse or search the caller’s drive (self)',
        description: '`folderId` lists a folder, `q` matches names. Paged by the provider: the `Link: rel="next"` header carries the next `pageToken` (the provider gives no total).' + USES,
        querystring: S.FilesQuery,
        response: { 200: Type.Array(S.DriveFileSchema) },
      },
    },
    async (request, reply) => {
      const page = await files.listFiles(deps(), actorOf(request).userId, request.query);
      if (page.nextPageToken) {
        const url = new URL(request.url, 'http://x');
        url.searchParams.set('pageToken', page.nextPageToken);
        reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
      }
      return page.files;
    },
  );

  app.post(
    `${BASE}/files`,
    {
      schema: {
        tags,
        summary: 'Upload files to the caller’s drive, streamed through (self)',
        description: 'multipart/form-data: optional `folderId` first, then up to 20 files in `files[]`, each at most FILE_LIMIT_BYTES (413 beyond).' + USES,
        ...upload('files[]', true),
        response: { 201: Type.Array(S.DriveFileSchema) },
      },
    },
    async (request, reply) => reply.code(201).send(await files.uploadFiles(deps(), actorOf(request).userId, request.parts() as AsyncIterableIterator<Multipart>)),
  );

  app.get(
    `${BASE}/files/:fileId/content`,
    {
      schema: {
        tags,
        summary: 'Download a file of the caller’s drive, streamed through (self)',
        description: 'Always as an attachment, with the provider’s content type. The drive answers 403 for files the granted scopes do not let the service read.' + USES,
        params: S.FileParams,
        response: { 200: { description: 'the file bytes', content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } } },
      },
    },
    async (request, reply) => {
      const file = await files.openFile(deps(), actorOf(request).userId, request.params.fileId);
      reply.type(file.contentType).header('content-disposition', contentDisposition(file.name)).header('x-content-type-options', 'nosniff').header('cache-control', 'private, no-store');
      if (file.size !== null) reply.header('content-length', String(file.size));
      return reply.send(file.body as never);
    },
  );

  app.post(
    `${BASE}/tasks/:taskId/messages`,
    {
      schema: {
        tags,
        summary: 'Send a task chat message with files of the caller’s drive attached (S:reader)',
        description: 'Each `driveFileIds` entry must be a file of the caller’s drive (400 otherwise); it is stored as a reference (name, type, size, web link) that every reader of the task sees, without any token.' + USES,
        params: TaskParams,
        body: S.SendDriveMessageBody,
        response: { 201: MessageSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await files.sendDriveMessage(deps(), session(request), request.params.taskId, request.body)),
  );

  app.patch(
    `${BASE}/tasks/:taskId/messages/:messageId`,
    {
      schema: {
        tags,
        summary: 'Edit one’s message: its text and/or its drive attachments (author only)',
        description: '`driveFileIds` replaces the message’s drive attachments; uploaded attachments stay.' + USES,
        params: S.TaskMessageParams,
        body: S.EditDriveMessageBody,
        response: { 200: MessageSchema },
      },
    },
    (request) => files.editDriveMessage(deps(), session(request), request.params.taskId, request.params.messageId, request.body),
  );
}
