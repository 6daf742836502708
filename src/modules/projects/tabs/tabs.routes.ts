import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { ProjectParams } from '../projects.schemas.js';
import * as S from './tabs.schemas.js';
import * as tabs from './tabs.service.js';

const tags = ['Projects'];

export default async function tabRoutes(app: App): Promise<void> {
  app.post(
    '/projects/:projectId/tabs',
    {
      schema: {
        tags,
        summary: 'Add a custom tab to a project',
        description: 'link takes url, doc takes pageId, board takes sourceProjectId (another project), table takes none. `order` defaults to the end.',
        params: ProjectParams,
        body: S.CreateTabBody,
        response: { 201: S.TabSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => tabs.createTab(ctx, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/tabs/:tabId',
    { schema: { tags, summary: 'Change a custom tab (its name, or the target its type takes)', params: S.TabParams, body: S.UpdateTabBody, response: { 200: S.TabSchema } } },
    (request) => write(app, request, (ctx) => tabs.updateTab(ctx, request.params.projectId, request.params.tabId, request.body)),
  );

  app.patch(
    '/projects/:projectId/tabs/:tabId/order',
    { schema: { tags, summary: 'Move a custom tab among the project’s tabs', params: S.TabParams, body: S.MoveTabBody, response: { 200: S.TabSchema } } },
    (request) => write(app, request, (ctx) => tabs.moveTab(ctx, request.params.projectId, request.params.tabId, request.body.order)),
  );

  app.delete(
    '/projects/:projectId/tabs/:tabId',
    { schema: { tags, summary: 'Delete a custom tab', params: S.TabParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => tabs.deleteTab(ctx, request.params.projectId, request.params.tabId));
      return reply.code(204).send(null);
    },
  );
}
