import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { problemResponse } from '../../../platform/openapi.js';
import * as S from '../ai.schemas.js';
import { aiDeps, tags } from '../settings.routes.js';
import { generateAnswer, prepareAsk, recordAnswer } from './ask.service.js';
import { VectorIndex } from './vector-index.js';

/**
 * A Server-Sent Events answer. Headers go out with the first piece of text, so a provider that
 * fails before saying anything still answers a plain 502 problem; a failure after that ends the
 * stream with an `error` event carrying the problem.
 */
class AnswerStream {
  private started = false;
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.reply.hijack();
    this.reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': String(this.request.id),
    });
  }

  get open(): boolean {
    return this.started;
  }

  send(event: string, data: unknown): void {
    this.start();
    this.reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    this.reply.raw.end();
  }
}

export default async function askRoutes(app: App): Promise<void> {
  const vectors = new VectorIndex(app.config.aiVectorCacheBytes);
  app.post(
    '/ai/requests',
    {
      schema: {
        tags,
        summary:
          'Ask the assistant: an answer from the documents the caller can read, with its sources. Without LLM settings the answer quotes the best passages (model null). With stream: text/event-stream of delta events {text}, then done with the AiAnswer (organization member; 403 AI_DISABLED while switched off)',
        body: S.AskBody,
        response: {
          200: { description: 'AiAnswer, or with stream: true a text/event-stream', content: { 'application/json': { schema: S.AiAnswerSchema }, 'text/event-stream': { schema: { type: 'string' } } } },
          403: problemResponse('FORBIDDEN or AI_DISABLED: the assistant is switched off for the organization'),
          502: problemResponse('AI_PROVIDER_FAILED: the configured model failed or could not be reached'),
        },
      },
    },
    async (request, reply) => {
      const deps = { ...aiDeps(app, request), vectors };
      const prepared = await read(app, request, (ctx) => prepareAsk(ctx, request.body, deps));
      if (!request.body.stream) {
        const generated = await generateAnswer(prepared);
        return write(app, request, (ctx) => recordAnswer(ctx, prepared, generated));
      }
      const stream = new AnswerStream(request, reply);
      try {
        const generated = await generateAnswer(prepared, (text) => stream.send('delta', { text }));
        const answer = await write(app, request, (ctx) => recordAnswer(ctx, prepared, generated));
        stream.send('done', answer);
        stream.end();
      } catch (err) {
        if (!stream.open) throw err;
        const problem = err instanceof AppError ? { status: err.status, code: err.code, detail: err.message } : { status: 500, code: 'INTERNAL' };
        if (!(err instanceof AppError)) request.log.error({ err }, 'streamed answer failed');
        stream.send('error', { type: 'about:blank', title: 'Error', ...problem, requestId: String(request.id) });
        stream.end();
      }
      return reply;
    },
  );
}
