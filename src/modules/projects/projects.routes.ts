import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import groupRoutes from './groups/groups.routes.js';
import placementRoutes from './placement/placement.routes.js';
import tabRoutes from './tabs/tabs.routes.js';
import * as S from './projects.schemas.js';
import * as projects from './projects.service.js';

const tags = ['Projects'];

export default async function projectRoutes(app: App): Promise<void> {
  app.get(
    '/projects',
    {
      schema: {
        tags,
        summary: "The caller's readable projects (the trash with deleted=true)",
        querystring: S.ListProjectsQuery,
        response: { 200: S.ProjectList },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => projects.listProjects(ctx, { ...request.query, ...page }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.get(
    '/spaces/:spaceId/projects',
    {
      schema: {
        tags,
        summary: 'Projects of a space, linked ones included, with their group and position in that space',
        params: S.SpaceParams,
        querystring: S.SpaceProjectsQuery,
        response: { 200: S.ProjectList },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => projects.listSpaceProjects(ctx, request.params.spaceId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/projects',
    { schema: { tags, summary: 'Create a project in a space', body: S.CreateProjectBody, response: { 201: S.ProjectFullSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => projects.createProject(ctx, request.body))),
  );

  app.get(
    '/projects/:projectId',
    { schema: { tags, summary: 'Get a project (full form: columns and tabs)', params: S.ProjectParams, response: { 200: S.ProjectFullSchema } } },
    (request) => read(app, request, (ctx) => projects.getProject(ctx, request.params.projectId)),
  );

  app.patch(
    '/projects/:projectId/name',
    { schema: { tags, summary: 'Rename a project', params: S.ProjectParams, body: S.NameBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.updateProject(ctx, request.params.projectId, { name: request.body.name })),
  );

  app.patch(
    '/projects/:projectId/description',
    { schema: { tags, summary: 'Change (or clear with null) the description of a project', params: S.ProjectParams, body: S.DescriptionBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.updateProject(ctx, request.params.projectId, { description: request.body.description })),
  );

  app.delete(
    '/projects/:projectId',
    { schema: { tags, summary: 'Move a project to the trash (restorable for 30 days)', params: S.ProjectParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => projects.deleteProject(ctx, request.params.projectId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/projects/:projectId/restore',
    { schema: { tags, summary: 'Restore a project from the trash', params: S.ProjectParams, response: { 200: S.ProjectFullSchema } } },
    (request) => write(app, request, (ctx) => projects.restoreProject(ctx, request.params.projectId)),
  );

  app.patch(
    '/projects/:projectId/favorite',
    { schema: { tags, summary: "Set the caller's favourite flag on a project", params: S.ProjectParams, body: S.FavoriteBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.setPersonalSettings(ctx, request.params.projectId, { favorite: request.body.favorite })),
  );

  app.patch(
    '/projects/:projectId/timeline-scale',
    { schema: { tags, summary: "Set the caller's timeline zoom on a project", params: S.ProjectParams, body: S.TimelineScaleBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.setPersonalSettings(ctx, request.params.projectId, { timelineScale: request.body.timelineScale })),
  );

  app.patch(
    '/projects/:projectId/timeline-grouping',
    {
      schema: { tags, summary: "Set the caller's timeline swimlanes on a project", params: S.ProjectParams, body: S.TimelineGroupingBody, response: { 200: S.ProjectSchema } },
    },
    (request) => write(app, request, (ctx) => projects.setPersonalSettings(ctx, request.params.projectId, { timelineGrouping: request.body.timelineGrouping })),
  );

  app.patch(
    '/projects/:projectId/show-documentation-tab',
    { schema: { tags, summary: 'Show or hide the documentation tab', params: S.ProjectParams, body: S.ShowDocumentationTabBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.updateProject(ctx, request.params.projectId, { showDocumentationTab: request.body.showDocumentationTab })),
  );

  app.patch(
    '/projects/:projectId/show-timeline-tab',
    { schema: { tags, summary: 'Show or hide the timeline tab', params: S.ProjectParams, body: S.ShowTimelineTabBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.updateProject(ctx, request.params.projectId, { showTimelineTab: request.body.showTimelineTab })),
  );

  app.patch(
    '/projects/:projectId/show-calendar-tab',
    { schema: { tags, summary: 'Show or hide the calendar tab', params: S.ProjectParams, body: S.ShowCalendarTabBody, response: { 200: S.ProjectSchema } } },
    (request) => write(app, request, (ctx) => projects.updateProject(ctx, request.params.projectId, { showCalendarTab: request.body.showCalendarTab })),
  );

  await app.register(placementRoutes);
  await app.register(groupRoutes);
  await app.register(tabRoutes);
}
