import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import * as answers from './answers.service.js';
import * as S from './questions.schemas.js';

const tags = ['Reglament questions'];

export default async function answerRoutes(app: App): Promise<void> {
  app.post(
    '/reglaments/:reglamentId/questions/:questionId/answers',
    { schema: { tags, summary: 'Add an answer to a question', params: S.QuestionParams, body: S.CreateAnswerBody, response: { 201: S.AnswerSchema } } },
    async (request, reply) => {
      const { reglamentId, questionId } = request.params;
      return reply.code(201).send(await write(app, request, (ctx) => answers.createAnswer(ctx, reglamentId, questionId, request.body)));
    },
  );

  app.patch(
    '/reglaments/:reglamentId/questions/:questionId/answers/:answerId/is-right',
    { schema: { tags, summary: 'Mark an answer right or wrong', params: S.AnswerParams, body: S.IsRightBody, response: { 200: S.AnswerSchema } } },
    (request) => {
      const { reglamentId, questionId, answerId } = request.params;
      return write(app, request, (ctx) => answers.updateAnswer(ctx, reglamentId, questionId, answerId, { isRight: request.body.isRight }));
    },
  );

  app.patch(
    '/reglaments/:reglamentId/questions/:questionId/answers/:answerId/name',
    { schema: { tags, summary: 'Change the text of an answer', params: S.AnswerParams, body: S.NameBody, response: { 200: S.AnswerSchema } } },
    (request) => {
      const { reglamentId, questionId, answerId } = request.params;
      return write(app, request, (ctx) => answers.updateAnswer(ctx, reglamentId, questionId, answerId, { name: request.body.name }));
    },
  );

  app.delete(
    '/reglaments/:reglamentId/questions/:questionId/answers/:answerId',
    { schema: { tags, summary: 'Delete an answer', params: S.AnswerParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      const { reglamentId, questionId, answerId } = request.params;
      await write(app, request, (ctx) => answers.deleteAnswer(ctx, reglamentId, questionId, answerId));
      return reply.code(204).send(null);
    },
  );
}
