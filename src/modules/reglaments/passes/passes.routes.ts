import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { ListQuery, PassedUserSchema, ReglamentFullSchema, ReglamentParams } from '../reglaments.schemas.js';
import * as S from './passes.schemas.js';
import * as passes from './passes.service.js';

const tags = ['Reglaments'];

export default async function passRoutes(app: App): Promise<void> {
  app.post(
    '/reglaments/:reglamentId/passed-users',
    {
      schema: {
        tags,
        summary: 'Acknowledge a reglament without a test (400 TEST_REQUIRED when it has one); the caller joins usersPassed once',
        params: ReglamentParams,
        response: { 201: PassedUserSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => passes.acknowledgeReglament(ctx, request.params.reglamentId))),
  );

  app.delete(
    '/reglaments/:reglamentId/passed-users',
    { schema: { tags, summary: 'Clear the users who passed: everyone passes again', params: ReglamentParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => passes.clearPassedUsers(ctx, request.params.reglamentId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/reglaments/:reglamentId/test-results',
    {
      schema: {
        tags,
        summary: 'Submit the test: passes when every question has exactly its right answers chosen',
        params: ReglamentParams,
        body: S.TestAnswersBody,
        response: { 201: S.TestResultSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => passes.passTest(ctx, request.params.reglamentId, request.body))),
  );

  app.get(
    '/user/reglaments/mandatory',
    {
      schema: {
        tags,
        summary: 'Mandatory and intro reglaments of the caller’s spaces that it has not passed yet',
        querystring: ListQuery,
        response: { 200: Type.Array(ReglamentFullSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => passes.listMyMandatory(ctx, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );
}
