import type { App } from '../../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../../platform/context.js';
import { Paging, pageOf, setPageHeaders } from '../../../platform/http.js';
import { orderToInt } from '../../../platform/schemas.js';
import * as S from './groups.schemas.js';
import * as groups from './groups.service.js';

const tags = ['Space groups'];
const ok = { 200: S.SpaceGroupSchema };

/** The caller's own sidebar folders of spaces, in its active organization. */
export default async function groupRoutes(app: App): Promise<void> {
  app.get(
    '/space-groups',
    { schema: { tags, summary: "The caller's space groups (sidebar folders) with their spaces", querystring: Paging(), response: { 200: Type.Array(S.SpaceGroupSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => groups.listSpaceGroups(ctx, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/space-groups',
    {
      schema: {
        tags,
        summary: 'Create a space group at a position (default: last), optionally moving spaces into it in the given order',
        body: S.CreateGroupBody,
        response: { 201: S.SpaceGroupSchema },
      },
    },
    async (request, reply) => {
      const { name, order, spaceIds } = request.body;
      return reply.code(201).send(await write(app, request, (ctx) => groups.createSpaceGroup(ctx, { name, order: orderToInt(order), spaceIds })));
    },
  );

  app.patch('/space-groups/:groupId/name', { schema: { tags, summary: 'Rename a space group', params: S.GroupParams, body: S.RenameGroupBody, response: ok } }, (request) =>
    write(app, request, (ctx) => groups.renameSpaceGroup(ctx, request.params.groupId, request.body.name)),
  );

  app.patch(
    '/space-groups/:groupId/order',
    { schema: { tags, summary: 'Move a space group to a position among the caller’s groups', params: S.GroupParams, body: S.MoveGroupBody, response: ok } },
    (request) => write(app, request, (ctx) => groups.moveSpaceGroup(ctx, request.params.groupId, orderToInt(request.body.order)!)),
  );

  app.patch(
    '/space-groups/:groupId/collapsed',
    { schema: { tags, summary: 'Expand or collapse a space group', params: S.GroupParams, body: S.CollapsedBody, response: ok } },
    (request) => write(app, request, (ctx) => groups.setSpaceGroupCollapsed(ctx, request.params.groupId, request.body.collapsed)),
  );

  app.patch(
    '/space-groups/:groupId/spaces',
    {
      schema: {
        tags,
        summary: 'Set the spaces of a group, in order; spaces left out become ungrouped (at the end of the ungrouped ones)',
        params: S.GroupParams,
        body: S.GroupSpacesBody,
        response: ok,
      },
    },
    (request) => write(app, request, (ctx) => groups.setSpaceGroupSpaces(ctx, request.params.groupId, request.body.spaceIds)),
  );

  app.delete(
    '/space-groups/:groupId',
    { schema: { tags, summary: 'Delete a space group; its spaces become ungrouped', params: S.GroupParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => groups.deleteSpaceGroup(ctx, request.params.groupId));
      return reply.code(204).send(null);
    },
  );
}
