import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './spaces.schemas.js';
import * as spaces from './spaces.service.js';

const tags = ['Spaces'];

export default async function spaceRoutes(app: App): Promise<void> {
  app.get(
    '/spaces',
    { schema: { tags, summary: "The caller's spaces with its role, order and favourite flag", querystring: S.ListSpacesQuery, response: { 200: Type.Array(S.SpaceSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => spaces.querySpaces(ctx.db, ctx.actor, { ...request.query, ...page }));
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
}
