import { Type, type TSchema } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../platform/types.js';
import { read } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { TaskSchema } from '../tasks/tasks.schemas.js';
import * as S from './analytics.schemas.js';
import * as analytics from './analytics.service.js';
import { registerAnalyticsQueue } from './analytics.queue.js';
import { flowCsv, memberReportCsv, projectReportCsv, seriesCsv, spaceAnalyticsCsv, taskListCsv, taskReportCsv } from './analytics.presenter.js';
import { RANGE_DEFINITION } from './analytics.range.js';

const tags = ['Analytics'];

const TASK_REPORT = `${RANGE_DEFINITION} total and byStatus: a snapshot now of the tasks in scope (not archived unless archived=true). created: created in range. finished: set to done (status 1) in range. overdue: at the end of the range (or now, if earlier) neither done nor rejected, with \`dateEnd\` (or the end of \`dateEndWithoutTime\`'s UTC day) before that moment. planTime: planned hours of the tasks in scope; factTime: hours of time records dated in range. byAssignee: the same per assignee (factTime: the hours that user recorded). \`?format=csv\` or \`Accept: text/csv\`: a row for the scope, then one per assignee.`;

/** JSON, or CSV when `format=csv` or `Accept: text/csv` asks for it. */
const wantsCsv = (request: FastifyRequest) =>
  (request.query as { format?: string }).format === 'csv' || /\btext\/csv\b/.test(request.headers.accept ?? '');

const both = (schema: TSchema) => ({
  200: { description: 'the report', content: { 'application/json': { schema }, 'text/csv': { schema: Type.String({ description: 'the same as CSV' }) } } },
});

async function answer<T>(request: FastifyRequest, reply: FastifyReply, report: T, csv: (r: T) => Promise<string>, name: string) {
  if (!wantsCsv(request)) return reply.type('application/json').send(report);
  reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`);
  return reply.send(Buffer.from(await csv(report), 'utf8') as never);
}

export default async function analyticsRoutes(app: App): Promise<void> {
  registerAnalyticsQueue(app);

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

  const SERIES = `${RANGE_DEFINITION} One point per interval (\`interval\` day, week from Monday, or month; UTC), zeros included; the first and last are clipped to the range. created / finished (set to done) / factTime (hours of time records dated in it) count within the interval; overdue is judged at its end (or now, if earlier).`;
  const DRILL = `${RANGE_DEFINITION} Exactly the tasks behind one number of the report (\`metric\`), in id order, paged as task lists are (X-Total-Count, Link).`;

  app.get(
    '/analytics/users/:userId/task-series',
    { schema: { tags, summary: 'Task series of a user (the user itself or an organization admin)', description: `Scope: the tasks assigned to the user that the caller can read. ${SERIES}`, params: S.UserParams, querystring: S.SeriesQuery, response: both(Type.Array(S.SeriesPointSchema)) } },
    async (request, reply) => answer(request, reply, await read(app, request, (ctx) => analytics.userTaskSeries(ctx, request.params.userId, request.query)), seriesCsv, `user-${request.params.userId}-task-series`),
  );

  app.get(
    '/analytics/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Space analytics: a series and a row per project (space admin)',
        description: `Scope: the projects at home in the space and linked into it, each task once in the series. ${SERIES} byProject: per project, its tasks now, done now, and overdue at the end of the range (or now).`,
        params: S.SpaceParams,
        querystring: S.SeriesQuery,
        response: both(S.SpaceAnalyticsSchema),
      },
    },
    async (request, reply) => answer(request, reply, await read(app, request, (ctx) => analytics.spaceAnalytics(ctx, request.params.spaceId, request.query)), spaceAnalyticsCsv, `space-${request.params.spaceId}-analytics`),
  );

  app.get(
    '/analytics/spaces/:spaceId/tasks',
    { schema: { tags, summary: 'The tasks behind a number of the space analytics (space admin)', description: DRILL, params: S.SpaceParams, querystring: S.SpaceTasksQuery, response: both(Type.Array(TaskSchema)) } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => analytics.spaceTasks(ctx, request.params.spaceId, request.query, page));
      setPageHeaders(request, reply, result.total, page);
      return answer(request, reply, result.items, taskListCsv, `space-${request.params.spaceId}-tasks`);
    },
  );

  app.get(
    '/analytics/projects/:projectId/report',
    {
      schema: {
        tags,
        summary: 'Project report: columns, lead and cycle time, throughput (space editor)',
        description: `${RANGE_DEFINITION} stages: every column with its tasks now and avgDaysInStage, the average days of the stays in it that ended in range (null when none did). leadTimeDays: set to done − created; cycleTimeDays: set to done − first move out of the project's first column (tasks that never left it are not in it); both median and p85 over the tasks finished in range, null when none. throughput: tasks finished in range per week. overdue, planTime, factTime, byAssignee: as the task report.`,
        params: S.ProjectParams,
        querystring: S.RangeQuery,
        response: both(S.ProjectReportSchema),
      },
    },
    async (request, reply) => answer(request, reply, await read(app, request, (ctx) => analytics.projectReportOf(ctx, request.params.projectId, request.query)), projectReportCsv, `project-${request.params.projectId}-report`),
  );

  app.get(
    '/analytics/projects/:projectId/report/tasks',
    { schema: { tags, summary: 'The tasks behind a number of the project report (space editor)', description: `${DRILL} stageId: only tasks in that column now; responsibleId: only tasks assigned to that user.`, params: S.ProjectParams, querystring: S.ReportTasksQuery, response: both(Type.Array(TaskSchema)) } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => analytics.reportTasks(ctx, request.params.projectId, request.query, page));
      setPageHeaders(request, reply, result.total, page);
      return answer(request, reply, result.items, taskListCsv, `project-${request.params.projectId}-report-tasks`);
    },
  );

  app.get(
    '/analytics/projects/:projectId/flow',
    {
      schema: {
        tags,
        summary: 'Cumulative flow of a project (space editor; added: the chart Kanboard users rely on)',
        description: `${RANGE_DEFINITION} Per interval (day, week from Monday, or month; UTC), the tasks in each column at its end (or now, if earlier), rebuilt from the record of every move; archived tasks count until they were archived.`,
        params: S.ProjectParams,
        querystring: S.SeriesQuery,
        response: both(Type.Array(S.FlowPointSchema)),
      },
    },
    async (request, reply) => answer(request, reply, await read(app, request, (ctx) => analytics.flowOf(ctx, request.params.projectId, request.query)), flowCsv, `project-${request.params.projectId}-flow`),
  );

  app.get(
    '/analytics/members',
    {
      schema: {
        tags,
        summary: 'Member report (organization admin)',
        description: `${RANGE_DEFINITION} One row per member of the organization, by user id, over the organization's tasks (of \`spaceId\` only, when given): assigned (now, not archived), finished (of those, set to done in range), overdue (of those, at the end of the range or now), planTime of the assigned tasks, factTime (hours the member recorded in range), lastActivityDate.`,
        querystring: S.MembersQuery,
        response: both(Type.Array(S.MemberReportRowSchema)),
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => analytics.membersReport(ctx, request.query, page));
      setPageHeaders(request, reply, result.total, page);
      return answer(request, reply, result.items, memberReportCsv, 'members-report');
    },
  );
}
