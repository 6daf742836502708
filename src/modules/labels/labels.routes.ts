import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './labels.schemas.js';
import * as labels from './labels.service.js';

const tags = ['Labels'];

export default async function labelRoutes(app: App): Promise<void> {
  app.get('/labels', { schema: { tags, summary: 'Organization labels', querystring: S.ListLabelsQuery, response: { 200: Type.Array(S.LabelSchema) } } }, async (request, reply) => {
    const page = pageOf(request.query);
    const result = await read(app, request, (ctx) => labels.listLabels(ctx, { ...page, q: request.query.q }));
    setPageHeaders(request, reply, result.total, page);
    return result.items;
  });

  app.post(
    '/labels',
    { schema: { tags, summary: 'Create a label (space editor in any space)', body: S.CreateLabelBody, response: { 201: S.LabelSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => labels.createLabel(ctx, request.body))),
  );

  app.patch(
    '/labels/:labelId',
    { schema: { tags, summary: 'Update a label (space editor in any space)', params: S.LabelParams, body: S.UpdateLabelBody, response: { 200: S.LabelSchema } } },
    (request) => write(app, request, (ctx) => labels.updateLabel(ctx, request.params.labelId, request.body)),
  );

  app.delete(
    '/labels/:labelId',
    { schema: { tags, summary: 'Delete a label from the organization and all its tasks (organization admin)', params: S.LabelParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => labels.deleteLabel(ctx, request.params.labelId));
      return reply.code(204).send(null);
    },
  );
}
