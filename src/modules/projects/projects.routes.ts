import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import * as S from './projects.schemas.js';
import * as projects from './projects.service.js';

const tags = ['Projects'];

export default async function projectRoutes(app: App): Promise<void> {
  app.post(
    '/projects',
    { schema: { tags, summary: 'Create a project in a space', body: S.CreateProjectBody, response: { 201: S.ProjectFullSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => projects.createProject(ctx, request.body))),
  );

  app.get('/projects/:projectId', { schema: { tags, summary: 'Get a project (full form: columns and tabs)', params: S.ProjectParams, response: { 200: S.ProjectFullSchema } } }, (request) =>
    read(app, request, (ctx) => projects.getProject(ctx, request.params.projectId)),
  );
}
