import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { upload } from '../../../platform/openapi.js';
import { receiveFile, withUpload } from '../../files/files.service.js';
import { authorizeSpace } from '../spaces.policy.js';
import { SpaceParams, SpaceSchema } from '../spaces.schemas.js';
import * as S from './settings.schemas.js';
import * as settings from './settings.service.js';

const tags = ['Space settings'];
const ok = { 200: SpaceSchema };

/** A space's settings: space admins only. */
export default async function settingsRoutes(app: App): Promise<void> {
  app.patch('/spaces/:spaceId/name', { schema: { tags, summary: 'Rename the space', params: SpaceParams, body: S.NameBody, response: ok } }, (request) =>
    write(app, request, (ctx) => settings.renameSpace(ctx, request.params.spaceId, request.body.name)),
  );

  app.patch(
    '/spaces/:spaceId/background',
    {
      schema: {
        tags,
        summary: 'Set the background: a preset key or #RRGGBB (replacing a custom image), or null for none',
        params: SpaceParams,
        body: S.BackgroundBody,
        response: ok,
      },
    },
    (request) => write(app, request, (ctx) => settings.setSpaceBackground(ctx, app.files, request.params.spaceId, request.body.background)),
  );

  app.patch(
    '/spaces/:spaceId/custom-background',
    {
      schema: {
        tags,
        summary: 'Upload a custom background (multipart field `file`: PNG, JPEG, GIF, WebP or AVIF, checked by content); replaces a preset',
        params: SpaceParams,
        ...upload('file'),
        response: ok,
      },
    },
    async (request) => {
      // Refused before the upload is read, so a non-admin cannot make the server store an image for nothing.
      await read(app, request, (ctx) => authorizeSpace(ctx.db, ctx.actor, request.params.spaceId, 'update'));
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      return withUpload(app.files, received, () =>
        write(app, request, (ctx) => settings.setSpaceCustomBackground(ctx, app.files, request.params.spaceId, received)),
      );
    },
  );

  app.patch('/spaces/:spaceId/archive', { schema: { tags, summary: 'Archive the space', params: SpaceParams, response: ok } }, (request) =>
    write(app, request, (ctx) => settings.archiveSpace(ctx, request.params.spaceId)),
  );

  app.patch('/spaces/:spaceId/restore', { schema: { tags, summary: 'Restore an archived space', params: SpaceParams, response: ok } }, (request) =>
    write(app, request, (ctx) => settings.restoreSpace(ctx, request.params.spaceId)),
  );

  app.patch('/spaces/:spaceId/icon', { schema: { tags, summary: 'Set the icon (emoji or key; null resets it)', params: SpaceParams, body: S.IconBody, response: ok } }, (request) =>
    write(app, request, (ctx) => settings.setSpaceIcon(ctx, request.params.spaceId, request.body.icon)),
  );

  app.patch(
    '/spaces/:spaceId/icon-color',
    { schema: { tags, summary: 'Set the icon colour (#RRGGBB; null resets it)', params: SpaceParams, body: S.IconColorBody, response: ok } },
    (request) => write(app, request, (ctx) => settings.setSpaceIconColor(ctx, request.params.spaceId, request.body.iconColor)),
  );
}
