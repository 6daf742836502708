import type { App } from '../../platform/types.js';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { read } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { notModified, requestedRange } from '../../platform/storage/conditional.js';
import { fileForDownload } from './files.service.js';
import { registerFileJobs } from './files.jobs.js';

const Bytes = { content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } };

export default async function filesRoutes(app: App): Promise<void> {
  registerFileJobs(app);

  app.get(
    '/files/:key',
    {
      // Bytes go out as stored: a range must count the stored bytes, and uploads are mostly compressed formats anyway.
      compress: false,
      schema: {
        tags: ['Files'],
        summary: 'Download a stored file (avatar, cover, attachment, document file)',
        description:
          'Streams the file. A `Range: bytes=first-last` request (one range; suffix and open-ended ranges too) answers 206 with those bytes; ' +
          'the `ETag` and `Last-Modified` it answers make a repeated request with `If-None-Match` or `If-Modified-Since` answer 304.',
        params: Type.Object({ key: Type.String({ description: 'the key from the file link' }) }),
        response: {
          200: { description: 'the file bytes', ...Bytes },
          206: { description: 'the requested byte range of the file', ...Bytes },
          304: { description: 'the copy the client holds is current' },
        },
      },
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      const file = await read(app, request, (ctx) => fileForDownload(ctx.db, ctx.actor, key));
      const validators = { etag: `"${file.key}"`, lastModified: file.createdAt };
      // Served as an attachment with its sniffed type, so an uploaded HTML file never renders in the app's origin.
      reply
        .header('etag', validators.etag)
        .header('last-modified', file.createdAt.toUTCString())
        .header('accept-ranges', 'bytes')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `${file.mimeType.startsWith('image/') ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.name)}`)
        .header('cache-control', 'private, max-age=3600');
      if (notModified(request.headers, validators)) return reply.code(304).send();
      const range = requestedRange(request.headers, file.size, validators);
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${file.size}`);
        throw new AppError('RANGE_NOT_SATISFIABLE', `the file has ${file.size} bytes`);
      }
      reply.type(file.mimeType);
      // HEAD answers from the row alone: Fastify would read (and drop) a whole object to answer it.
      const stream = request.method === 'HEAD' ? Readable.from([]) : await app.files.open(file.key, range ?? undefined);
      if (range) {
        reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`).header('content-length', String(range.end - range.start + 1));
      } else {
        reply.header('content-length', String(file.size));
      }
      return reply.send(stream as never);
    },
  );
}
