import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { ProjectFullSchema } from '../../projects/projects.schemas.js';
import { TaskParams, TaskWithHistorySchema } from '../tasks.schemas.js';
import * as S from './actions.schemas.js';
import { archiveTasks } from './archive.service.js';
import { duplicateProject, duplicateTask } from './duplicate.service.js';
import actionListRoutes from './lists.routes.js';
import { getTasksByIds } from './lists.service.js';
import { finishColumnTasks, setNeedsAttention } from './status.service.js';

const tags = ['Kanban task actions'];

// Optional-only bodies: a client may send none at all.
const emptyBody = async (request: { body: unknown }) => {
  request.body ??= {};
};

export default async function actionRoutes(app: App): Promise<void> {
  app.post(
    '/tasks/:taskId/duplicate',
    {
      schema: {
        tags,
        summary: 'Duplicate a task',
        description:
          'Copies name, description, colour, dates, importance, planned time, labels, assignees and members (those who may be on the target project), ' +
          'subtasks unless `withSubtasks` is false, chat messages when `withMessages` is true. Status, cover, inspectors and time records are not copied. ' +
          'The copy goes to `stageId` (default: the home column), right after the original when they share it. Column limits apply (400 STAGE_TASKS_LIMIT).',
        params: TaskParams,
        body: S.DuplicateTaskBody,
        response: { 201: TaskWithHistorySchema },
      },
      preValidation: emptyBody,
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => duplicateTask(ctx, request.params.taskId, request.body))),
  );

  app.patch(
    '/tasks/:taskId/needs-attention',
    {
      schema: {
        tags,
        summary: 'Mark a task as needing attention (status 3 with a reason), or clear it (null: back to status 0)',
        params: TaskParams,
        body: S.NeedsAttentionBody,
        response: { 200: TaskWithHistorySchema },
      },
    },
    (request) => write(app, request, (ctx) => setNeedsAttention(ctx, request.params.taskId, request.body.blockReason)),
  );

  app.patch(
    '/tasks/archive',
    {
      schema: {
        tags,
        summary: 'Archive several tasks, all or nothing (own tasks as member, any as editor)',
        description: 'Each `stageId` is a column its task sits in. Any refusal (404, 403, 409 already archived, 400 wrong column) archives none.',
        body: S.ArchiveManyBody,
        response: { 200: S.ArchiveManyResult },
      },
    },
    (request) => write(app, request, (ctx) => archiveTasks(ctx, request.body.items)),
  );

  app.post(
    '/tasks/by-ids',
    {
      schema: {
        tags,
        summary: 'Tasks by ids (≤500), in the order given; ids the caller cannot read are left out',
        body: S.ByIdsBody,
        response: { 200: S.TaskList },
      },
    },
    (request) => read(app, request, (ctx) => getTasksByIds(ctx, request.body.ids)),
  );

  app.patch(
    '/projects/:projectId/stages/:stageId/finish-tasks',
    {
      schema: {
        tags,
        summary: 'Mark every task of a column done (status 1)',
        description: 'Answers the tasks it changed (those not done yet, board order) and a status history record (type 4) for each.',
        params: S.ColumnParams,
        response: { 200: S.TasksWithHistory },
      },
    },
    (request) => write(app, request, (ctx) => finishColumnTasks(ctx, request.params.projectId, request.params.stageId)),
  );

  app.post(
    '/projects/:projectId/duplicate',
    {
      schema: {
        tags,
        summary: 'Duplicate a project: its columns and, with withTasks, the tasks on its board',
        description:
          'S:editor on the project and in the target space (default: its home space). The copy takes description, tab flags and columns ' +
          '(name, colour, task limit, order); with `withTasks` the tasks on the board (not archived) are copied as duplicate task copies them ' +
          '(with subtasks, without messages), in the same positions; assignees and members not in a space holding the copy are left out.',
        params: S.ProjectParams,
        body: S.DuplicateProjectBody,
        response: { 201: ProjectFullSchema },
      },
      preValidation: emptyBody,
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => duplicateProject(ctx, request.params.projectId, request.body))),
  );

  await actionListRoutes(app);
}
