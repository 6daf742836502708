import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { orderToInt } from '../../platform/schemas.js';
import * as S from './docs.schemas.js';
import * as groups from './groups.service.js';
import { readPublicPage } from './public.service.js';
import pageRoutes from './pages.routes.js';

const tags = ['Documentation'];

export default async function docsRoutes(app: App): Promise<void> {
  app.get(
    '/spaces/:spaceId/documentation-groups',
    {
      schema: {
        tags,
        summary: "A space's documentation groups, each with its page tree (archived pages too with archived=true)",
        params: S.SpaceParams,
        querystring: S.GroupsQuery,
        response: { 200: Type.Array(S.DocumentationGroupSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) =>
        groups.listGroups(ctx, request.params.spaceId, { archived: request.query.archived ?? false, ...page }),
      );
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/spaces/:spaceId/documentation-groups',
    {
      schema: {
        tags,
        summary: 'Create a documentation group at `order` (the end by default)',
        params: S.SpaceParams,
        body: S.CreateGroupBody,
        response: { 201: S.DocumentationGroupSchema },
      },
    },
    async (request, reply) => {
      const input = { name: request.body.name, order: orderToInt(request.body.order) };
      return reply.code(201).send(await write(app, request, (ctx) => groups.createGroup(ctx, request.params.spaceId, input)));
    },
  );

  app.patch(
    '/spaces/:spaceId/documentation-groups/:groupId/name',
    { schema: { tags, summary: 'Rename a documentation group', params: S.GroupParams, body: S.NameBody, response: { 200: S.DocumentationGroupSchema } } },
    (request) => write(app, request, (ctx) => groups.renameGroup(ctx, request.params.spaceId, request.params.groupId, request.body.name)),
  );

  app.delete(
    '/spaces/:spaceId/documentation-groups/:groupId',
    {
      schema: {
        tags,
        summary: 'Delete an empty documentation group (400 GROUP_NOT_EMPTY while it holds pages, archived ones included)',
        params: S.GroupParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await write(app, request, (ctx) => groups.deleteGroup(ctx, request.params.spaceId, request.params.groupId));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/public/pages/:publicToken',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'A published page, without a credential; content is sanitized HTML. 404 once unpublished or archived',
        params: S.PublicParams,
        response: { 200: S.PublicPageSchema },
      },
    },
    async (request, reply) => {
      const page = await readPublicPage(app.database.db, request.params.publicToken);
      // Shared links are for reading, never for framing or sniffing.
      reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return page;
    },
  );

  await pageRoutes(app);
}
