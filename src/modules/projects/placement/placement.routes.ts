import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { ProjectParams, ProjectSchema } from '../projects.schemas.js';
import * as S from './placement.schemas.js';
import * as placement from './placement.service.js';

const tags = ['Projects'];

/** Where a project sits: its position and group in a space's sidebar, and the other spaces it is shown in. */
export default async function placementRoutes(app: App): Promise<void> {
  app.patch(
    '/projects/:projectId/order',
    { schema: { tags, summary: 'Move a project within its group (siblings renumbered)', params: ProjectParams, body: S.MoveProjectBody, response: { 200: ProjectSchema } } },
    (request) => write(app, request, (ctx) => placement.moveProject(ctx, request.params.projectId, request.body)),
  );

  app.patch(
    '/projects/:projectId/group',
    {
      schema: {
        tags,
        summary: 'Move a project into a project group (null: out of any group)',
        params: ProjectParams,
        body: S.ProjectGroupChangeBody,
        response: { 200: ProjectSchema },
      },
    },
    (request) => write(app, request, (ctx) => placement.moveProjectToGroup(ctx, request.params.projectId, request.body)),
  );

  app.post(
    '/projects/:projectId/spaces',
    {
      schema: {
        tags,
        summary: 'Show a project in another space too (editor in both spaces)',
        params: ProjectParams,
        body: S.LinkProjectBody,
        response: { 201: ProjectSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => placement.linkProject(ctx, request.params.projectId, request.body))),
  );

  app.delete(
    '/projects/:projectId/spaces/:spaceId',
    { schema: { tags, summary: 'Remove a project from a space it was linked into (not its home space)', params: S.LinkParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => placement.unlinkProject(ctx, request.params.projectId, request.params.spaceId));
      return reply.code(204).send(null);
    },
  );
}
