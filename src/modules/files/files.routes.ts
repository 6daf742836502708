import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read } from '../../platform/context.js';
import { fileForDownload } from './files.service.js';

export default async function filesRoutes(app: App): Promise<void> {
  app.get(
    '/files/:key',
    {
      schema: {
        tags: ['Files'],
        summary: 'Download a stored file (avatar, cover, attachment, document file)',
        params: Type.Object({ key: Type.String({ description: 'the key from the file link' }) }),
        response: { 200: { description: 'the file bytes', content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } } },
      },
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      const file = await read(app, request, (ctx) => fileForDownload(ctx.db, ctx.actor, key));
      const blob = await app.files.open(file.key);
      // Served as an attachment with its sniffed type, so an uploaded HTML file never renders in the app's origin.
      reply
        .type(file.mimeType)
        .header('content-length', String(blob.size))
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `${file.mimeType.startsWith('image/') ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.name)}`)
        .header('cache-control', 'private, max-age=3600');
      return reply.send(blob.stream as never);
    },
  );
}
