import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { upload } from '../../../platform/openapi.js';
import { FileSchema } from '../../../platform/schemas.js';
import { receiveFiles } from '../../files/files.service.js';
import { ListQuery, ReglamentParams } from '../reglaments.schemas.js';
import { withUploads } from '../uploads/uploads.service.js';
import answerRoutes from './answers.routes.js';
import * as S from './questions.schemas.js';
import * as questions from './questions.service.js';

const tags = ['Reglament questions'];

export default async function questionRoutes(app: App): Promise<void> {
  app.get(
    '/reglaments/:reglamentId/questions',
    {
      schema: {
        tags,
        summary: 'Questions of a reglament’s test with answers and files (isRight is null below space editor)',
        params: ReglamentParams,
        querystring: ListQuery,
        response: { 200: Type.Array(S.QuestionSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => questions.listQuestions(ctx, request.params.reglamentId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/reglaments/:reglamentId/questions',
    { schema: { tags, summary: 'Add a question to the test', params: ReglamentParams, body: S.CreateQuestionBody, response: { 201: S.QuestionSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => questions.createQuestion(ctx, request.params.reglamentId, request.body))),
  );

  app.patch(
    '/reglaments/:reglamentId/questions/order',
    { schema: { tags, summary: 'Reorder the whole test', params: ReglamentParams, body: S.ReorderBody, response: { 200: Type.Array(S.QuestionSchema) } } },
    (request) => write(app, request, (ctx) => questions.reorderQuestions(ctx, request.params.reglamentId, request.body.ids)),
  );

  app.patch(
    '/reglaments/:reglamentId/questions/:questionId/name',
    { schema: { tags, summary: 'Change the text of a question', params: S.QuestionParams, body: S.NameBody, response: { 200: S.QuestionBriefSchema } } },
    (request) => write(app, request, (ctx) => questions.renameQuestion(ctx, request.params.reglamentId, request.params.questionId, request.body.name)),
  );

  app.patch(
    '/reglaments/:reglamentId/questions/:questionId/order',
    { schema: { tags, summary: 'Move a question to a position in the test', params: S.QuestionParams, body: S.OrderBody, response: { 200: S.QuestionBriefSchema } } },
    (request) => write(app, request, (ctx) => questions.moveQuestion(ctx, request.params.reglamentId, request.params.questionId, request.body.order)),
  );

  app.delete(
    '/reglaments/:reglamentId/questions/:questionId',
    { schema: { tags, summary: 'Delete a question with its answers and files', params: S.QuestionParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => questions.deleteQuestion(ctx, app.files, request.params.reglamentId, request.params.questionId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/reglaments/:reglamentId/questions/:questionId/files',
    { schema: { tags, summary: 'Attach files to a question (multipart field `files[]`)', params: S.QuestionParams, ...upload('files[]', true), response: { 201: Type.Array(FileSchema) } } },
    async (request, reply) => {
      const received = await receiveFiles(request, app.files, { maxBytes: app.config.fileLimitBytes });
      const { reglamentId, questionId } = request.params;
      const files = await withUploads(app.files, received, () =>
        write(app, request, (ctx) => questions.addQuestionFiles(ctx, app.files, reglamentId, questionId, received)),
      );
      return reply.code(201).send(files);
    },
  );

  app.delete(
    '/reglaments/:reglamentId/questions/:questionId/files/:fileId',
    { schema: { tags, summary: 'Remove a file from a question', params: S.QuestionFileParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      const { reglamentId, questionId, fileId } = request.params;
      await write(app, request, (ctx) => questions.deleteQuestionFile(ctx, app.files, reglamentId, questionId, fileId));
      return reply.code(204).send(null);
    },
  );

  await answerRoutes(app);
}
