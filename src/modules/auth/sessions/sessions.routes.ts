import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { IdParams } from '../../../platform/schemas.js';
import * as S from './sessions.schemas.js';
import * as sessions from './sessions.service.js';

const tags = ['Authentication'];

export default async function sessionRoutes(app: App): Promise<void> {
  app.get(
    '/user/sessions',
    {
      schema: {
        tags,
        summary: 'List own sessions: when each was opened and last used, from which address and client, and which one is this',
        querystring: S.SessionsQuery,
        response: { 200: Type.Array(S.SessionSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => sessions.listSessions(ctx, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.delete(
    '/user/sessions',
    {
      schema: {
        tags,
        summary: 'Sign out every other session (all of them when called with an API token); the current one stays',
        response: { 200: S.RevokedSessionsSchema },
      },
    },
    (request) => write(app, request, (ctx) => sessions.revokeOtherSessions(ctx)),
  );

  app.delete(
    '/user/sessions/:sessionId',
    { schema: { tags, summary: 'Revoke one of own sessions (it answers 401 from then on, on every instance)', params: IdParams('sessionId'), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => sessions.revokeSession(ctx, request.params.sessionId));
      return reply.code(204).send(null);
    },
  );
}
