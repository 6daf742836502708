import { Type, type TSchema } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../platform/types.js';
import { read } from '../../platform/context.js';
import * as S from './analytics.schemas.js';
import * as analytics from './analytics.service.js';
import { taskReportCsv } from './analytics.presenter.js';
import { RANGE_DEFINITION } from './analytics.range.js';

const tags = ['Analytics'];

const TASK_REPORT = `${RANGE_DEFINITION} total and byStatus: a snapshot now of the tasks in scope (not archived unless archived=true). created: created in range. finished: set to done (status 1) in range. overdue: at the end of the range (or now, if earlier) neither done nor rejected, with \`dateEnd\` (or the end of \`dateEndWithoutTime\`'s UTC day) before that moment. planTime: planned hours of the tasks in scope; factTime: hours of time records dated in range. byAssignee: the same per assignee (factTime: the hours that user recorded). \`?format=csv\` or \`Accept: text/csv\`: a row for the scope, then one per assignee.`;

/** JSON, or CSV when `format=csv` or `Accept: text/csv` asks for it. */
const wantsCsv = (request: FastifyRequest) =>
  (request.query as { format?: string }).format === 'csv' || /\btext\/csv\b/.test(request.headers.accept ?? '');

const both = (schema: TSchema) => ({
  200: { description: 'the report', content: { 'application/json': { schema }, 'text/csv': { schema: Type.String({ description: 'the same as CSV' }) } } },
});

function answer<T>(request: FastifyRequest, reply: FastifyReply, report: T, csv: (r: T) => string, name: string) {
  if (!wantsCsv(request)) return reply.type('application/json').send(report);
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .send(Buffer.from(csv(report), 'utf8') as never);
}

export default async function analyticsRoutes(app: App): Promise<void> {
  app.get(
    '/analytics/projects/:projectId/task-report',
    { schema: { tags, summary: 'Task report of a project (space editor)', description: TASK_REPORT, params: S.ProjectParams, querystring: S.RangeQuery, response: both(S.TaskReportSchema) } },
    async (request, reply) => {
      const report = await read(app, request, (ctx) => analytics.projectTaskReport(ctx, request.params.projectId, request.query));
      return answer(request, reply, report, taskReportCsv, `project-${request.params.projectId}-task-report`);
    },
  );

  app.get(
    '/analytics/spaces/:spaceId/task-report',
    {
      schema: {
        tags,
        summary: 'Task report of a space (space admin)',
        description: `Scope: the tasks of the projects at home in the space and of those linked into it, each counted once. ${TASK_REPORT}`,
        params: S.SpaceParams,
        querystring: S.RangeQuery,
        response: both(S.TaskReportSchema),
      },
    },
    async (request, reply) => {
      const report = await read(app, request, (ctx) => analytics.spaceTaskReport(ctx, request.params.spaceId, request.query));
      return answer(request, reply, report, taskReportCsv, `space-${request.params.spaceId}-task-report`);
    },
  );

  app.get(
    '/analytics/users/:userId/task-report',
    {
      schema: {
        tags,
        summary: 'Task report of a user (the user itself or an organization admin)',
        description: `Scope: the tasks assigned to the user that the caller can read. ${TASK_REPORT}`,
        params: S.UserParams,
        querystring: S.RangeQuery,
        response: both(S.TaskReportSchema),
      },
    },
    async (request, reply) => {
      const report = await read(app, request, (ctx) => analytics.userTaskReport(ctx, request.params.userId, request.query));
      return answer(request, reply, report, taskReportCsv, `user-${request.params.userId}-task-report`);
    },
  );
}
