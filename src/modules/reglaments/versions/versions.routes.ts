import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { ListQuery, ReglamentFullSchema, ReglamentParams } from '../reglaments.schemas.js';
import * as S from './versions.schemas.js';
import * as versions from './versions.service.js';

const tags = ['Reglament history'];

export default async function versionRoutes(app: App): Promise<void> {
  app.get(
    '/reglaments/:reglamentId/versions',
    { schema: { tags, summary: 'Versions of a reglament, newest first (without content)', params: ReglamentParams, querystring: ListQuery, response: { 200: Type.Array(S.ReglamentVersionSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => versions.listVersions(ctx, request.params.reglamentId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/reglaments/:reglamentId/versions',
    { schema: { tags, summary: 'Write a version: a named snapshot of the current content', params: ReglamentParams, body: S.WriteVersionBody, response: { 201: S.ReglamentVersionSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => versions.writeVersion(ctx, request.params.reglamentId, request.body.name ?? null))),
  );

  app.get(
    '/reglaments/:reglamentId/versions/:versionId',
    { schema: { tags, summary: 'One version with its content', params: S.VersionParams, response: { 200: S.ReglamentVersionWithContentSchema } } },
    (request) => read(app, request, (ctx) => versions.getVersion(ctx, request.params.reglamentId, request.params.versionId)),
  );

  app.patch(
    '/reglaments/:reglamentId/versions/:versionId/restore',
    { schema: { tags, summary: 'Restore a version: its content becomes current, itself recorded as a new version', params: S.VersionParams, response: { 200: ReglamentFullSchema } } },
    async (request, reply) => {
      const { reglament, etag } = await write(app, request, (ctx) => versions.restoreVersion(ctx, request.params.reglamentId, request.params.versionId));
      reply.header('etag', etag);
      return reglament;
    },
  );

  app.get(
    '/reglaments/:reglamentId/history',
    { schema: { tags, summary: 'The full history of a reglament, newest first', params: ReglamentParams, querystring: ListQuery, response: { 200: Type.Array(S.ReglamentEventSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => versions.listEvents(ctx, request.params.reglamentId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );
}
