import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { actorOf } from '../../platform/auth.js';
import { read, write } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { asClientError } from '../../platform/files.js';
import { wakeJob } from '../../platform/jobs.js';
import { upload } from '../../platform/openapi.js';
import { archiveLimits, MAX_ARCHIVE_BYTES } from './limits.js';
import { authorizePortability } from './portability.policy.js';
import * as S from './portability.schemas.js';
import * as portability from './portability.service.js';
import { PORTABILITY_JOB, registerPortability } from './portability.worker.js';

const tags = ['Organization'];
const ARCHIVE = { content: { 'application/gzip': { schema: Type.String({ format: 'binary' }) } } };

const FORMAT =
  'The archive is a .tar.gz: format.json (format and version) first, then every table of the organization as JSON Lines ' +
  '(tables/<table>/000001.jsonl…), the uploaded files (files/<file id>), and manifest.json last with the row counts and the ' +
  'size and SHA-256 of every entry. Secrets are never in it: password hashes, sessions, API tokens, invite links, webhook ' +
  'secrets, integration tokens, LLM keys, stored answers of idempotent requests, OAuth states.';

export default async function portabilityRoutes(app: App): Promise<void> {
  registerPortability(app);
  const wake = wakeJob(app, PORTABILITY_JOB);

  app.post(
    '/organization/exports',
    {
      schema: {
        tags,
        summary: 'Export the whole organization as one archive (owner, admin)',
        description: `Answers 202 with the export job; GET /organization/exports/{exportId} (and the export.progress / export.finished events, to the requester) follow it. ${FORMAT} The archive can be downloaded for 7 days.`,
        response: { 202: S.PortabilityJobSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await write(app, request, (ctx) => portability.startExport(ctx, wake))),
  );

  app.get(
    '/organization/exports/:exportId',
    { schema: { tags, summary: 'An organization export and its progress (owner, admin)', params: S.ExportParams, response: { 200: S.PortabilityJobSchema } } },
    (request) => read(app, request, (ctx) => portability.getJob(ctx, 'export', request.params.exportId)),
  );

  app.get(
    '/organization/exports/:exportId/download',
    {
      compress: false,
      schema: {
        tags,
        summary: 'Download the archive of a finished organization export (owner, admin)',
        description: `Streams the .tar.gz. 409 EXPORT_NOT_READY while the export is queued or running (or if it failed), 410 EXPORT_EXPIRED after 7 days. ${FORMAT}`,
        params: S.ExportParams,
        response: { 200: { description: 'the archive', ...ARCHIVE } },
      },
    },
    async (request, reply) => {
      const archive = await read(app, request, (ctx) => portability.exportArchive(ctx, request.params.exportId));
      const stream = await app.files.open(archive.key);
      const day = archive.createdAt.toISOString().slice(0, 10);
      reply
        .type('application/gzip')
        .header('content-length', String(archive.size))
        .header('content-disposition', `attachment; filename="organization-export-${request.params.exportId}-${day}.tar.gz"`)
        .header('cache-control', 'private, no-store');
      return reply.send(stream as never);
    },
  );

  app.post(
    '/organization/imports',
    {
      schema: {
        tags,
        summary: 'Import an organization export into a new organization of the caller (owner, admin; multipart field `file`)',
        description:
          `The upload is checked as it is stored: an archive that is not a .tar.gz of an organization export, of an unknown format version, ` +
          `with a file name outside its folders, an entry or total beyond the limits (a decompression bomb) or a checksum that does not match ` +
          `its manifest answers 400 (ARCHIVE_INVALID, ARCHIVE_VERSION_UNSUPPORTED, ARCHIVE_UNSAFE, ARCHIVE_CHECKSUM_MISMATCH) and keeps nothing. ` +
          `At most ${MAX_ARCHIVE_BYTES} bytes. Answers 202 with the import job; GET /organization/imports/{importId} and the ` +
          `organization.import.progress / organization.import.finished events follow it. The import writes in one transaction: ids are new, ` +
          `people are matched by email (others get an account without a password: a pending invitation), files are restored, history and chat ` +
          `keep their authors and times; the report gives the counts and what was left out and why. ${FORMAT}`,
        ...upload('file'),
        response: { 202: S.PortabilityJobSchema },
      },
    },
    async (request, reply) => {
      // Refused before the upload is read: a member cannot make the server store an archive for nothing.
      authorizePortability(actorOf(request));
      if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the archive as multipart/form-data (field file)');
      const part = await request.file({ limits: { fileSize: MAX_ARCHIVE_BYTES } }).catch(asClientError);
      if (!part) throw new AppError('VALIDATION_FAILED', 'a file part is required', [{ path: '/file', message: 'is required' }]);
      const raw = request.raw;
      const arrived = new Promise<void>((resolve) => (raw.readableEnded ? resolve() : raw.once('end', () => resolve())));
      const received = await portability.storeVerifiedArchive(app.files, part.file, archiveLimits(app.config), arrived).catch(asClientError);
      return reply.code(202).send(await write(app, request, (ctx) => portability.startImport(ctx, received, app.files, wake)));
    },
  );

  app.get(
    '/organization/imports/:importId',
    { schema: { tags, summary: 'An organization import, its progress and its report (owner, admin)', params: S.ImportParams, response: { 200: S.PortabilityJobSchema } } },
    (request) => read(app, request, (ctx) => portability.getJob(ctx, 'import', request.params.importId)),
  );
}
