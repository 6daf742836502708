import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../platform/context.js';
import { Paging, pageOf, setPageHeaders } from '../../platform/http.js';
import { CreateReviewBody, ReviewSchema } from './reviews.schemas.js';
import * as reviews from './reviews.service.js';

const tags = ['Reviews'];

export default async function reviewRoutes(app: App): Promise<void> {
  app.post('/reviews', { schema: { tags, summary: 'Create a review (feedback)', body: CreateReviewBody, response: { 201: ReviewSchema } } }, async (request, reply) =>
    reply.code(201).send(await write(app, request, (ctx) => reviews.createReview(ctx, request.body))),
  );

  app.get(
    '/reviews',
    { schema: { tags, summary: 'All reviews, newest first (service operators only)', querystring: Paging(), response: { 200: Type.Array(ReviewSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => reviews.listReviews(ctx, app.config.operatorEmails, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );
}
