import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './reglaments.schemas.js';
import * as reglaments from './reglaments.service.js';
import groupRoutes from './groups/groups.routes.js';
import introRoutes from './intro/intro.routes.js';
import passRoutes from './passes/passes.routes.js';
import questionRoutes from './questions/questions.routes.js';
import uploadRoutes from './uploads/uploads.routes.js';
import versionRoutes from './versions/versions.routes.js';

const tags = ['Reglaments'];
const full = { 200: S.ReglamentFullSchema };

export default async function reglamentRoutes(app: App): Promise<void> {
  // Content may be 1 MiB, which JSON escaping can grow past the default body limit.
  const contentBodyLimit = Math.max(app.config.bodyLimitBytes, 3 * S.CONTENT_MAX_BYTES);

  app.get(
    '/spaces/:spaceId/reglaments',
    {
      schema: {
        tags,
        summary: 'Reglaments shown in a space, by group and position (drafts only for editors)',
        params: S.SpaceParams,
        querystring: S.ListQuery,
        response: { 200: Type.Array(S.ReglamentListItemSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => reglaments.listSpaceReglaments(ctx, request.params.spaceId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/reglaments',
    {
      bodyLimit: contentBodyLimit,
      schema: { tags, summary: 'Create a reglament in a group of a space', body: S.CreateReglamentBody, response: { 201: S.ReglamentCreatedSchema } },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => reglaments.createReglament(ctx, request.body))),
  );

  app.get(
    '/reglaments/search',
    {
      schema: {
        tags,
        summary: 'Full-text search in the names and content of the reglaments the caller can read, best match first',
        querystring: S.SearchQuery,
        response: { 200: Type.Array(S.ReglamentListItemSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => reglaments.searchReglaments(ctx, { ...request.query, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.get(
    '/reglaments/:reglamentId',
    { schema: { tags, summary: 'Get a reglament (full form); the ETag header is its content revision, for If-Match', params: S.ReglamentParams, response: full } },
    async (request, reply) => {
      const { reglament, etag } = await read(app, request, (ctx) => reglaments.getReglament(ctx, request.params.reglamentId));
      reply.header('etag', etag);
      return reglament;
    },
  );

  app.delete(
    '/reglaments/:reglamentId',
    { schema: { tags, summary: 'Delete a reglament with its test, versions, history and files', params: S.ReglamentParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => reglaments.deleteReglament(ctx, app.files, request.params.reglamentId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/reglaments/:reglamentId/name',
    { schema: { tags, summary: 'Rename a reglament', params: S.ReglamentParams, body: S.NameBody, response: full } },
    (request) => write(app, request, (ctx) => reglaments.renameReglament(ctx, request.params.reglamentId, request.body.name)),
  );

  app.patch(
    '/reglaments/:reglamentId/content',
    {
      bodyLimit: contentBodyLimit,
      schema: {
        tags,
        summary: 'Change the content; with If-Match, only if it is still the revision the caller read (else 409 STALE_VERSION)',
        params: S.ReglamentParams,
        headers: S.ContentHeaders,
        body: S.ContentBody,
        response: full,
      },
    },
    async (request, reply) => {
      const { reglament, etag } = await write(app, request, (ctx) =>
        reglaments.writeContent(ctx, request.params.reglamentId, request.body.content, request.headers['if-match']),
      );
      reply.header('etag', etag);
      return reglament;
    },
  );

  app.patch(
    '/reglaments/:reglamentId/publish',
    { schema: { tags, summary: 'Publish a draft (no change when already published)', params: S.ReglamentParams, response: full } },
    (request) => write(app, request, (ctx) => reglaments.publishReglament(ctx, request.params.reglamentId)),
  );

  app.patch(
    '/reglaments/:reglamentId/mandatory',
    { schema: { tags, summary: 'Set the mandatory flag: members are asked to pass it', params: S.ReglamentParams, body: S.MandatoryBody, response: full } },
    (request) => write(app, request, (ctx) => reglaments.setMandatory(ctx, request.params.reglamentId, request.body.mandatory)),
  );

  app.patch(
    '/reglaments/:reglamentId/favorite',
    { schema: { tags, summary: "Set the caller's favourite flag", params: S.ReglamentParams, body: S.FavoriteBody, response: full } },
    (request) => write(app, request, (ctx) => reglaments.setFavorite(ctx, request.params.reglamentId, request.body.favorite)),
  );

  app.patch(
    '/reglaments/:reglamentId/order',
    {
      schema: {
        tags,
        summary: 'Move a reglament within its group, or (reglamentColumnId) into another group of a space showing it',
        params: S.ReglamentParams,
        body: S.MoveBody,
        response: full,
      },
    },
    (request) => write(app, request, (ctx) => reglaments.moveReglament(ctx, request.params.reglamentId, request.body)),
  );

  app.post(
    '/reglaments/:reglamentId/spaces',
    { schema: { tags, summary: 'Show the reglament in another space too', params: S.ReglamentParams, body: S.AddSpaceBody, response: { 201: S.ReglamentFullSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => reglaments.addToSpace(ctx, request.params.reglamentId, request.body))),
  );

  app.delete(
    '/reglaments/:reglamentId/spaces/:spaceId',
    { schema: { tags, summary: 'Stop showing the reglament in a space other than its home', params: S.ReglamentSpaceParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => reglaments.removeFromSpace(ctx, request.params.reglamentId, request.params.spaceId));
      return reply.code(204).send(null);
    },
  );

  await groupRoutes(app);
  await introRoutes(app);
  await passRoutes(app);
  await questionRoutes(app);
  await uploadRoutes(app);
  await versionRoutes(app);
}
