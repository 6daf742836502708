import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MultipartFile, Multipart } from '@fastify/multipart';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { assertStorableText } from '../../../platform/validation.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { receiveFiles, type ReceivedFile } from '../../files/files.service.js';
import { HistorySchema } from '../history/history.schemas.js';
import { TaskParams } from '../tasks.schemas.js';
import { listTaskHistory } from './details.service.js';
import * as S from './messages.schemas.js';
import * as messages from './messages.service.js';
import { addReaction, removeReaction } from './reactions.service.js';

const tags = ['Task properties'];

/** Cursor paging: the total of the list, and the next page as `before` the last message given. */
function setCursorHeaders(request: FastifyRequest, reply: FastifyReply, total: number, nextBefore: number | null): void {
  reply.header('x-total-count', String(total));
  if (nextBefore === null) return;
  const url = new URL(request.url, 'http://x');
  url.searchParams.set('before', String(nextBefore));
  reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
}

/**
 * Streams a multipart send: the files through receiveFiles (size limits, type by content), the
 * `text` and `replyToId` fields collected on the way, whatever their position among the parts.
 */
async function receiveMessage(app: App, request: FastifyRequest): Promise<{ input: S.SendMessageInput; files: ReceivedFile[] }> {
  const fields: Record<string, string> = {};
  const files = await receiveFiles(
    {
      isMultipart: () => request.isMultipart(),
      files: async function* () {
        for await (const part of request.parts() as AsyncIterableIterator<Multipart>) {
          if (part.type === 'file') yield part as MultipartFile;
          else {
            assertStorableText(part.fieldname, '/');
            assertStorableText(String(part.value), `/${part.fieldname}`);
            fields[part.fieldname] = String(part.value);
          }
        }
      } as () => AsyncIterableIterator<MultipartFile>,
    },
    app.files,
    { maxBytes: app.config.fileLimitBytes },
  );
  const reply = fields.replyToId?.trim() ? Number(fields.replyToId) : null;
  const problems = [
    ...(files.length > S.FILES_MAX ? [{ path: '/files[]', message: `must hold at most ${S.FILES_MAX} files` }] : []),
    ...((fields.text ?? '').length > S.TEXT_MAX ? [{ path: '/text', message: `must NOT have more than ${S.TEXT_MAX} characters` }] : []),
    ...(reply !== null && !(Number.isSafeInteger(reply) && reply > 0) ? [{ path: '/replyToId', message: 'must be a message id' }] : []),
  ];
  if (problems.length > 0) {
    await Promise.all(files.map((f) => app.files.remove(f.key)));
    throw new AppError('VALIDATION_FAILED', `${problems[0]!.path} ${problems[0]!.message}`, problems);
  }
  return { input: { text: fields.text ?? '', replyToId: reply }, files };
}

export default async function messageRoutes(app: App): Promise<void> {
  app.get(
    '/tasks/:taskId/messages',
    {
      schema: {
        tags,
        summary: 'Chat messages of a task, newest first',
        description: 'Pages back with `before` (a message id): the `Link: rel="next"` header gives the next page; `X-Total-Count` counts the whole chat (or its pinned part).',
        params: TaskParams,
        querystring: S.MessagesQuery,
        response: { 200: Type.Array(S.MessageSchema) },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => messages.listMessages(ctx, request.params.taskId, request.query));
      setCursorHeaders(request, reply, result.total, result.nextBefore);
      return result.items;
    },
  );

  app.get(
    '/tasks/:taskId/history',
    {
      schema: { tags, summary: 'Chat details: the history of a task, newest first', params: TaskParams, querystring: S.HistoryQuery, response: { 200: Type.Array(HistorySchema) } },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => listTaskHistory(ctx, request.params.taskId, { type: request.query.type, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/tasks/:taskId/messages',
    {
      schema: {
        tags,
        summary: 'Send a chat message (readers may comment)',
        description:
          'JSON `{text, replyToId?, fileIds?}` (files the caller uploaded earlier), or multipart/form-data with `text`, `replyToId` and the files in `files[]`. ' +
          '`@[userId]` in the text mentions a member of a space holding the task (others are left as text). Not a task change: no history record.',
        params: TaskParams,
        body: { content: { 'application/json': { schema: S.SendMessageBody }, 'multipart/form-data': { schema: S.SendMessageForm } } },
        response: { 201: S.MessageSchema },
      },
    },
    async (request, reply) => {
      const { taskId } = request.params;
      if (!request.isMultipart()) {
        const input = request.body as S.SendMessageInput;
        return reply.code(201).send(await write(app, request, (ctx) => messages.sendMessage(ctx, app.files, taskId, input)));
      }
      await read(app, request, (ctx) => messages.authorizeSend(ctx, taskId));
      const { input, files } = await receiveMessage(app, request);
      try {
        return reply.code(201).send(await write(app, request, (ctx) => messages.sendMessage(ctx, app.files, taskId, input, files)));
      } catch (error) {
        // recordFile removes its blob on rollback; a refusal before it must not leave any behind either.
        await Promise.all(files.map((f) => app.files.remove(f.key)));
        throw error;
      }
    },
  );

  app.patch(
    '/tasks/:taskId/messages/:messageId/text',
    { schema: { tags, summary: 'Edit a message (its author only); sets editedAt', params: S.MessageParams, body: S.EditTextBody, response: { 200: S.MessageSchema } } },
    (request) => write(app, request, (ctx) => messages.editMessageText(ctx, request.params.taskId, request.params.messageId, request.body.text)),
  );

  app.delete(
    '/tasks/:taskId/messages/:messageId',
    { schema: { tags, summary: 'Delete a message (its author, or any as space editor)', params: S.MessageParams, response: { 204: Type.Null({ description: 'deleted' }) } } },
    async (request, reply) => {
      await write(app, request, (ctx) => messages.deleteMessage(ctx, app.files, request.params.taskId, request.params.messageId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/tasks/:taskId/messages/:messageId/reactions',
    { schema: { tags, summary: 'React to a message with one Unicode emoji (once per user and emoji)', params: S.MessageParams, body: S.ReactionBody, response: { 201: S.MessageSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => addReaction(ctx, request.params.taskId, request.params.messageId, request.body.emoji))),
  );

  app.delete(
    '/tasks/:taskId/messages/:messageId/reactions/:emoji',
    { schema: { tags, summary: 'Remove one’s own reaction (the emoji URL-encoded)', params: S.ReactionParams, response: { 200: S.MessageSchema } } },
    (request) => write(app, request, (ctx) => removeReaction(ctx, request.params.taskId, request.params.messageId, request.params.emoji)),
  );

  app.patch(
    '/tasks/:taskId/messages/:messageId/pinned',
    { schema: { tags, summary: 'Pin or unpin a message (space member)', params: S.MessageParams, body: S.PinnedBody, response: { 200: S.MessageSchema } } },
    (request) => write(app, request, (ctx) => messages.setMessagePinned(ctx, request.params.taskId, request.params.messageId, request.body.pinned)),
  );
}
