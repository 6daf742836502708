import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { SpaceParams } from '../projects.schemas.js';
import * as S from './groups.schemas.js';
import * as groups from './groups.service.js';

const tags = ['Project groups'];

export default async function groupRoutes(app: App): Promise<void> {
  app.post(
    '/spaces/:spaceId/project-groups',
    { schema: { tags, summary: 'Create a project group in a space', params: SpaceParams, body: S.CreateGroupBody, response: { 201: S.ProjectGroupSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => groups.createProjectGroup(ctx, request.params.spaceId, request.body))),
  );

  app.patch(
    '/spaces/:spaceId/project-groups/:groupId/name',
    { schema: { tags, summary: 'Rename a project group', params: S.GroupParams, body: S.RenameGroupBody, response: { 200: S.ProjectGroupSchema } } },
    (request) => write(app, request, (ctx) => groups.renameProjectGroup(ctx, request.params.spaceId, request.params.groupId, request.body.name)),
  );

  app.patch(
    '/spaces/:spaceId/project-groups/:groupId/order',
    { schema: { tags, summary: 'Move a project group among the space’s groups', params: S.GroupParams, body: S.MoveGroupBody, response: { 200: S.ProjectGroupSchema } } },
    (request) => write(app, request, (ctx) => groups.moveProjectGroup(ctx, request.params.spaceId, request.params.groupId, request.body.order)),
  );

  app.delete(
    '/spaces/:spaceId/project-groups/:groupId',
    { schema: { tags, summary: 'Delete a project group (its projects become ungrouped)', params: S.GroupParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => groups.deleteProjectGroup(ctx, request.params.spaceId, request.params.groupId));
      return reply.code(204).send(null);
    },
  );
}
