import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { SpaceSchema } from '../../spaces/spaces.schemas.js';
import { SpaceParams } from '../reglaments.schemas.js';
import { IntroBody } from './intro.schemas.js';
import { setIntroReglament } from './intro.service.js';

const tags = ['Spaces'];

export default async function introRoutes(app: App): Promise<void> {
  app.patch(
    '/spaces/:spaceId/intro-reglament',
    {
      schema: {
        tags,
        summary: 'Set (or reset with null) the intro reglament of a space: a published reglament shown there, which members are asked to pass',
        params: SpaceParams,
        body: IntroBody,
        response: { 200: SpaceSchema },
      },
    },
    (request) => write(app, request, (ctx) => setIntroReglament(ctx, request.params.spaceId, request.body.reglamentId)),
  );
}
