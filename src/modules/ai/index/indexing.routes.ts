import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { wakeJob } from '../../../platform/jobs.js';
import { problemResponse } from '../../../platform/openapi.js';
import * as S from '../ai.schemas.js';
import { tags } from '../settings.routes.js';
import * as indexing from './indexing.service.js';
import { INDEXING_JOB, registerIndexing } from './indexing.worker.js';

export default async function indexingRoutes(app: App): Promise<void> {
  registerIndexing(app);
  const wake = wakeJob(app, INDEXING_JOB);

  app.get(
    '/ai/documents',
    {
      schema: {
        tags,
        summary: 'What the index holds, each entry indexed, stale (its source changed since) or failed (organization admin)',
        querystring: S.ListDocumentsQuery,
        response: { 200: Type.Array(S.AiDocumentSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const { spaceId, sourceType, status } = request.query;
      const result = await read(app, request, (ctx) =>
        indexing.listIndexedDocuments(ctx, { ...page, ...(spaceId ? { spaceId } : {}), ...(sourceType ? { sourceType } : {}), ...(status ? { status } : {}) }),
      );
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.get(
    '/ai/documents/unindexed',
    { schema: { tags, summary: 'Pages, reglaments and project documentation not indexed yet (organization admin)', querystring: S.UnindexedQuery, response: { 200: S.UnindexedSchema } } },
    (request) => read(app, request, (ctx) => indexing.listUnindexed(ctx, request.query.spaceId ? { spaceId: request.query.spaceId } : {})),
  );

  app.post(
    '/ai/indexing-jobs',
    {
      schema: {
        tags,
        summary: 'Index a space in the background: only changed sources unless full (organization admin)',
        body: S.CreateJobBody,
        response: { 201: S.IndexingJobSchema, 409: problemResponse('INDEXING_RUNNING: a job of this space is queued or running') },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => indexing.createIndexingJob(ctx, request.body, wake))),
  );

  app.get(
    '/ai/indexing-jobs/:jobId',
    { schema: { tags, summary: 'An indexing job and its progress (organization admin)', params: S.JobParams, response: { 200: S.IndexingJobSchema } } },
    (request) => read(app, request, (ctx) => indexing.getIndexingJob(ctx, request.params.jobId)),
  );
}
