import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './templates.schemas.js';
import * as templates from './templates.service.js';

const tags = ['Projects'];

export default async function templateRoutes(app: App): Promise<void> {
  app.get(
    '/templates',
    { schema: { tags, summary: "The organization's project templates, by name", querystring: S.ListTemplatesQuery, response: { 200: Type.Array(S.TemplateSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => templates.listTemplates(ctx, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/templates',
    {
      schema: {
        tags,
        summary: 'Make a template from a project',
        description: `A snapshot of the project's columns and tabs and, with withTasks, its tasks on the board (at most ${templates.MAX_TEMPLATE_TASKS}), without dates or people. POST /projects {templateId} applies it.`,
        body: S.CreateTemplateBody,
        response: { 201: S.TemplateSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => templates.createTemplate(ctx, request.body))),
  );

  app.delete(
    '/templates/:templateId',
    { schema: { tags, summary: 'Delete a template (its creator, or an organization admin)', params: S.TemplateParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => templates.deleteTemplate(ctx, request.params.templateId));
      return reply.code(204).send(null);
    },
  );
}
