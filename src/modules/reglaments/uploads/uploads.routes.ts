import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { upload } from '../../../platform/openapi.js';
import { FileSchema } from '../../../platform/schemas.js';
import { receiveFile, receiveFiles } from '../../files/files.service.js';
import { ReglamentParams } from '../reglaments.schemas.js';
import { addReglamentFiles, withUploads } from './uploads.service.js';

const tags = ['Reglaments'];

export default async function uploadRoutes(app: App): Promise<void> {
  app.post(
    '/reglaments/:reglamentId/images',
    { schema: { tags, summary: 'Upload an image for the content (multipart field `file`: PNG, JPEG, GIF, WebP or AVIF)', params: ReglamentParams, ...upload('file'), response: { 201: FileSchema } } },
    async (request, reply) => {
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      const [file] = await withUploads(app.files, [received], () =>
        write(app, request, (ctx) => addReglamentFiles(ctx, app.files, request.params.reglamentId, [received], 'image')),
      );
      return reply.code(201).send(file);
    },
  );

  app.post(
    '/reglaments/:reglamentId/files',
    { schema: { tags, summary: 'Upload files for the content (multipart field `files[]`)', params: ReglamentParams, ...upload('files[]', true), response: { 201: Type.Array(FileSchema) } } },
    async (request, reply) => {
      const received = await receiveFiles(request, app.files, { maxBytes: app.config.fileLimitBytes });
      const files = await withUploads(app.files, received, () =>
        write(app, request, (ctx) => addReglamentFiles(ctx, app.files, request.params.reglamentId, received, 'file')),
      );
      return reply.code(201).send(files);
    },
  );
}
