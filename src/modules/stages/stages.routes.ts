import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { write } from '../../platform/context.js';
import * as S from './stages.schemas.js';
import * as columns from './stages.service.js';

const tags = ['Stages'];

export default async function stageRoutes(app: App): Promise<void> {
  app.post(
    '/projects/:projectId/stages',
    {
      schema: {
        tags,
        summary: 'Create a column, moving the given tasks of the project into it',
        params: S.StagesParams,
        body: S.CreateStageBody,
        response: { 201: S.StageSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => columns.createStage(ctx, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/stages/order',
    {
      schema: {
        tags,
        summary: 'Set the order of all columns (ids must name exactly the project’s columns)',
        params: S.StagesParams,
        body: S.ReorderStagesBody,
        response: { 200: S.StageList },
      },
    },
    (request) => write(app, request, (ctx) => columns.reorderStages(ctx, request.params.projectId, request.body.ids)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/name',
    { schema: { tags, summary: 'Rename a column', params: S.StageParams, body: S.RenameStageBody, response: { 200: S.StageSchema } } },
    (request) => write(app, request, (ctx) => columns.renameStage(ctx, request.params.projectId, request.params.stageId, request.body.name)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/tasks-limit',
    { schema: { tags, summary: 'Set the task limit of a column (0 = no limit)', params: S.StageParams, body: S.TasksLimitBody, response: { 200: S.StageSchema } } },
    (request) => write(app, request, (ctx) => columns.setStageTasksLimit(ctx, request.params.projectId, request.params.stageId, request.body.tasksLimit)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/color',
    { schema: { tags, summary: 'Set the colour of a column ("" resets it)', params: S.StageParams, body: S.StageColorBody, response: { 200: S.StageColorSchema } } },
    (request) => write(app, request, (ctx) => columns.setStageColor(ctx, request.params.projectId, request.params.stageId, request.body.color)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/order',
    { schema: { tags, summary: 'Move a column within its project', params: S.StageParams, body: S.MoveStageBody, response: { 200: S.StageSchema } } },
    (request) => write(app, request, (ctx) => columns.moveStage(ctx, request.params.projectId, request.params.stageId, request.body.order)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/project',
    {
      schema: {
        tags,
        summary: 'Move a column with its tasks to another project (editor of both; 409 if a task is already on the target board)',
        params: S.StageParams,
        body: S.MoveStageToProjectBody,
        response: { 200: S.StageSchema },
      },
    },
    (request) => write(app, request, (ctx) => columns.moveStageToProject(ctx, request.params.projectId, request.params.stageId, request.body)),
  );

  app.delete(
    '/projects/:projectId/stages/:stageId',
    {
      schema: {
        tags,
        summary: 'Delete a column; its tasks go to moveTasksTo (same project, within its limit), and without it a non-empty column answers 400 STAGE_NOT_EMPTY',
        params: S.StageParams,
        querystring: S.DeleteStageQuery,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await write(app, request, (ctx) => columns.deleteStage(ctx, request.params.projectId, request.params.stageId, request.query.moveTasksTo));
      return reply.code(204).send(null);
    },
  );
}
