import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../../platform/types.js';
import { read, write } from '../../../../platform/context.js';
import { receiveFile, withUpload } from '../../../files/files.service.js';
import { TaskParams, TaskWithHistorySchema } from '../../tasks.schemas.js';
import { CoverFileBody, type CoverFileInput } from '../properties.schemas.js';
import * as cover from './cover.service.js';

const tags = ['Task properties'];

/**
 * The form the document shows for an upload. The multipart parser leaves the body empty (the
 * handler streams the part), so this schema has no `type` and validates that empty body as well.
 */
const CoverUploadForm = Type.Unsafe<undefined>({
  description: 'multipart/form-data with one PNG, JPEG, WebP, GIF or AVIF image (≤ 10 MiB and 40 MP, type checked by content) in the field `file`',
  properties: { file: { type: 'string', format: 'binary' } },
  required: ['file'],
});

export default async function coverRoutes(app: App): Promise<void> {
  /**
   * Image work happens between the steps: an upload is streamed to disk, and any image decoded to
   * find its colour, before the one write transaction opens, so neither holds a database connection.
   */
  async function changeCover(request: FastifyRequest, taskId: number) {
    if (request.isMultipart()) {
      await read(app, request, (ctx) => cover.authorizeCoverChange(ctx, taskId));
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      return withUpload(app.files, received, async () => {
        const source = await cover.inspectCoverUpload(app.files, received);
        return write(app, request, (ctx) => cover.setTaskCover(ctx, app.files, taskId, source));
      });
    }
    const { fileId } = request.body as CoverFileInput;
    const source = await read(app, request, (ctx) => cover.inspectCoverFile(ctx, app.files, taskId, fileId));
    return write(app, request, (ctx) => cover.setTaskCover(ctx, app.files, taskId, source));
  }

  app.patch(
    '/tasks/:taskId/cover',
    {
      schema: {
        tags,
        summary: 'Set or replace the cover: upload an image, or name an image file of the organization (history 12)',
        description:
          'Send multipart/form-data with the image in `file`, or JSON `{fileId}`. width, height and dominantColor are measured from the image; pictureUid is the file key (download at /files/{pictureUid}).',
        params: TaskParams,
        body: { content: { 'application/json': { schema: CoverFileBody }, 'multipart/form-data': { schema: CoverUploadForm } } },
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => changeCover(request, request.params.taskId),
  );

  app.delete(
    '/tasks/:taskId/cover',
    { schema: { tags, summary: 'Remove the cover (history 12)', params: TaskParams, response: { 200: TaskWithHistorySchema } } },
    (request) => write(app, request, (ctx) => cover.removeTaskCover(ctx, app.files, request.params.taskId)),
  );
}
