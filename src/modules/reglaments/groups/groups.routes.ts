import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { SpaceParams } from '../reglaments.schemas.js';
import * as S from './groups.schemas.js';
import * as groups from './groups.service.js';

const tags = ['Reglament groups'];

export default async function groupRoutes(app: App): Promise<void> {
  app.post(
    '/spaces/:spaceId/reglament-groups',
    { schema: { tags, summary: 'Create a reglament group in a space', params: SpaceParams, body: S.CreateGroupBody, response: { 201: S.ReglamentGroupSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => groups.createReglamentGroup(ctx, request.params.spaceId, request.body))),
  );

  app.patch(
    '/spaces/:spaceId/reglament-groups/:groupId/name',
    { schema: { tags, summary: 'Rename a reglament group', params: S.GroupParams, body: S.RenameGroupBody, response: { 200: S.ReglamentGroupSchema } } },
    (request) => write(app, request, (ctx) => groups.renameReglamentGroup(ctx, request.params.spaceId, request.params.groupId, request.body.name)),
  );

  app.patch(
    '/spaces/:spaceId/reglament-groups/:groupId/order',
    { schema: { tags, summary: 'Move a reglament group among the space’s groups', params: S.GroupParams, body: S.MoveGroupBody, response: { 200: S.ReglamentGroupSchema } } },
    (request) => write(app, request, (ctx) => groups.moveReglamentGroup(ctx, request.params.spaceId, request.params.groupId, request.body.order)),
  );

  app.delete(
    '/spaces/:spaceId/reglament-groups/:groupId',
    {
      schema: {
        tags,
        summary: 'Delete a reglament group (400 GROUP_NOT_EMPTY unless moveTo names a group for its reglaments)',
        params: S.GroupParams,
        querystring: S.DeleteGroupQuery,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await write(app, request, (ctx) => groups.deleteReglamentGroup(ctx, request.params.spaceId, request.params.groupId, request.query.moveTo));
      return reply.code(204).send(null);
    },
  );
}
