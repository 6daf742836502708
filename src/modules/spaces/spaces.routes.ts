import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { orderToInt } from '../../platform/schemas.js';
import { joinHooks } from '../auth/auth.hooks.js';
import { setSpaceReadCheck } from '../files/files.policy.js';
import * as S from './spaces.schemas.js';
import * as spaces from './spaces.service.js';
import { canReadSpace } from './spaces.policy.js';
import { joinByInviteOnRegister } from './members/invite-links.service.js';
import memberRoutes from './members/members.routes.js';
import groupRoutes from './groups/groups.routes.js';
import invitationRoutes from './invitations/invitations.routes.js';
import settingsRoutes from './settings/settings.routes.js';

const tags = ['Spaces'];

export default async function spaceRoutes(app: App): Promise<void> {
  // Modules below spaces ask through these hooks, so they never import this module's tables.
  joinHooks.joinByInvite = joinByInviteOnRegister;
  setSpaceReadCheck(canReadSpace);

  app.get(
    '/spaces',
    {
      schema: {
        tags,
        summary: "The caller's spaces (active ones unless archived=true) with its role, folder, position and favourite flag",
        querystring: S.ListSpacesQuery,
        response: { 200: Type.Array(S.SpaceSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => spaces.listSpaces(ctx, { ...request.query, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/spaces',
    { schema: { tags, summary: 'Create a space (the caller becomes its admin)', body: S.CreateSpaceBody, response: { 201: S.SpaceFullSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => spaces.createSpace(ctx, request.body))),
  );

  app.get('/spaces/:spaceId', { schema: { tags, summary: 'Get a space (full form)', params: S.SpaceParams, response: { 200: S.SpaceFullSchema } } }, (request) =>
    read(app, request, (ctx) => spaces.getSpace(ctx, request.params.spaceId)),
  );

  app.delete(
    '/spaces/:spaceId',
    { schema: { tags, summary: 'Delete a space with its projects, tasks, members, invite link and files', params: S.SpaceParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => spaces.deleteSpace(ctx, app.files, request.params.spaceId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/spaces/:spaceId/order',
    {
      schema: {
        tags,
        summary: "Move the space in the caller's own sidebar: a position within its folder, or (spaceGroupId) into another folder or out of one",
        params: S.SpaceParams,
        body: S.ReorderSpaceBody,
        response: { 200: S.SpaceSchema },
      },
    },
    (request) =>
      write(app, request, (ctx) =>
        spaces.reorderSpace(ctx, request.params.spaceId, { order: orderToInt(request.body.order)!, spaceGroupId: request.body.spaceGroupId }),
      ),
  );

  app.patch(
    '/spaces/:spaceId/favorite',
    { schema: { tags, summary: "Set the caller's favourite flag of the space", params: S.SpaceParams, body: S.FavoriteBody, response: { 200: S.SpaceSchema } } },
    (request) => write(app, request, (ctx) => spaces.setSpaceFavorite(ctx, request.params.spaceId, request.body.favorite)),
  );

  await memberRoutes(app);
  await groupRoutes(app);
  await invitationRoutes(app);
  await settingsRoutes(app);
}
