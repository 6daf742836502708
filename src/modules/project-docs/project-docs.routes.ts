import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { upload } from '../../platform/openapi.js';
import { FileSchema } from '../../platform/schemas.js';
import { receiveFile, receiveFiles, withUpload } from '../files/files.service.js';
import { CONTENT_BODY_LIMIT, withUploads } from '../docs/uploads.js';
import { contentEtag } from '../../platform/content-etag.js';
import * as S from './project-docs.schemas.js';
import * as docs from './project-docs.service.js';

const tags = ['Projects'];
const params = S.ProjectParams;

export default async function projectDocsRoutes(app: App): Promise<void> {
  app.get(
    '/projects/:projectId/documentation',
    {
      schema: {
        tags,
        summary: "Open a project's documentation tab: content, images, files; the ETag header names its version (for If-Match) and the whole answer",
        params,
        response: { 200: S.ProjectDocumentationSchema },
      },
    },
    async (request, reply) => {
      const doc = await read(app, request, (ctx) => docs.getProjectDocumentation(ctx, request.params.projectId));
      reply.header('etag', contentEtag(doc.version, doc));
      return doc;
    },
  );

  app.patch(
    '/projects/:projectId/documentation/content',
    {
      bodyLimit: CONTENT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Change the documentation text; with If-Match, a stale version answers 409 STALE_VERSION and nothing is written',
        params,
        headers: S.IfMatchHeaders,
        body: S.ContentBody,
        response: { 200: S.ProjectDocumentationSchema },
      },
    },
    async (request, reply) => {
      const input = { content: request.body.content, ifMatch: request.headers['if-match'] };
      const doc = await write(app, request, (ctx) => docs.writeProjectDocumentation(ctx, request.params.projectId, input));
      reply.header('etag', contentEtag(doc.version, doc));
      return doc;
    },
  );

  app.post(
    '/projects/:projectId/documentation/images',
    {
      schema: {
        tags,
        summary: 'Upload an image for the documentation (multipart field `file`: PNG, JPEG, GIF, WebP or AVIF, checked by content)',
        params,
        ...upload('file'),
        response: { 201: FileSchema },
      },
    },
    async (request, reply) => {
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      const file = await withUpload(app.files, received, () =>
        write(app, request, (ctx) => docs.uploadDocumentationImage(ctx, app.files, request.params.projectId, received)),
      );
      return reply.code(201).send(file);
    },
  );

  app.delete(
    '/projects/:projectId/documentation/images/:fileId',
    { schema: { tags, summary: 'Delete a documentation image', params: S.ImageParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => docs.deleteDocumentationImage(ctx, app.files, request.params.projectId, request.params.fileId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/projects/:projectId/documentation/files',
    { schema: { tags, summary: 'Upload files to the documentation (multipart field files[])', params, ...upload('files[]', true), response: { 201: Type.Array(FileSchema) } } },
    async (request, reply) => {
      const received = await receiveFiles(request, app.files, { maxBytes: app.config.fileLimitBytes });
      const files = await withUploads(app.files, received, () =>
        write(app, request, (ctx) => docs.uploadDocumentationFiles(ctx, app.files, request.params.projectId, received)),
      );
      return reply.code(201).send(files);
    },
  );
}
