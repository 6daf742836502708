import { Type, type Static } from 'typebox';
import { Paging } from '../../platform/http.js';
import { Id, Nullable } from '../../platform/schemas.js';
import { DateOrTime } from './analytics.range.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Hours = (description: string) => Type.Number({ minimum: 0, description });

export const RangeQuery = Type.Object({
  dateFrom: Type.Optional(DateOrTime('start of the range, inclusive (default: 30 days before dateTo)')),
  dateTo: Type.Optional(DateOrTime('end of the range, exclusive (default: now)')),
  archived: Type.Optional(Type.Boolean({ description: 'count archived tasks too (default false)' })),
  format: Type.Optional(Type.Literal('csv', { description: 'answer text/csv instead of JSON (so does `Accept: text/csv`)' })),
});
export type RangeQueryInput = Static<typeof RangeQuery>;

export const AssigneeRowSchema = Type.Object({
  userId: Id('assignee'),
  total: Count('tasks of the scope assigned to the user'),
  done: Count('of them, done now (status 1)'),
  overdue: Count('of them, overdue (as `overdue`)'),
  planTime: Hours('planned hours of those tasks'),
  factTime: Hours('hours the user recorded on tasks of the scope, dated in range'),
});

export const TaskReportSchema = Type.Object(
  {
    total: Count('tasks in scope now (not archived unless archived=true)'),
    byStatus: Type.Array(Type.Object({ status: Type.Integer({ minimum: 0, maximum: 3 }), count: Count('tasks in scope with this status now') }), {
      description: 'every status 0 in work, 1 done, 2 rejected, 3 needs attention, zeros included',
    }),
    overdue: Count('tasks in scope that at the end of the range (or now, if earlier) were neither done nor rejected, with the deadline before that moment'),
    created: Count('tasks in scope created in range'),
    finished: Count('tasks in scope set to done (status 1) in range'),
    planTime: Hours('planned hours of the tasks in scope'),
    factTime: Hours('hours of time records dated in range on tasks in scope'),
    byAssignee: Type.Array(AssigneeRowSchema, { description: 'one row per assignee of a task in scope, by user id' }),
  },
  { description: 'TaskReport' },
);
export type TaskReportDto = Static<typeof TaskReportSchema>;

export const ProjectParams = Type.Object({ projectId: Id('project id') });
export const SpaceParams = Type.Object({ spaceId: Id('space id') });
export const UserParams = Type.Object({ userId: Id('user id') });

const Interval = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], { description: 'UTC days, ISO weeks starting Monday, or months (default week)' });
export const SeriesQuery = Type.Object({ ...RangeQuery.properties, interval: Type.Optional(Interval) });
export type SeriesQueryInput = Static<typeof SeriesQuery>;

export const SeriesPointSchema = Type.Object(
  {
    from: Type.String({ description: 'start of the interval (clipped to dateFrom), ISO date-time' }),
    created: Count('tasks created in the interval'),
    finished: Count('tasks set to done in the interval'),
    overdue: Count('tasks overdue at the end of the interval (or now, if earlier)'),
    factTime: Hours('hours of time records dated in the interval'),
  },
  { description: 'SeriesPoint' },
);

export const ProjectRowSchema = Type.Object({
  projectId: Id('project at home in the space or linked into it'),
  total: Count('its tasks now (not archived)'),
  done: Count('of them, done now'),
  overdue: Count('of them, overdue at the end of the range (or now, if earlier)'),
});
export const SpaceAnalyticsSchema = Type.Object({ points: Type.Array(SeriesPointSchema), byProject: Type.Array(ProjectRowSchema) }, { description: 'SpaceAnalytics' });
export type SpaceAnalyticsDto = Static<typeof SpaceAnalyticsSchema>;

const Spread = Nullable(
  Type.Object({ median: Type.Number({ description: 'median, days' }), p85: Type.Number({ description: '85th percentile, days' }) }, { description: 'null when no task finished in range' }),
);
export const ProjectReportSchema = Type.Object(
  {
    stages: Type.Array(
      Type.Object({
        stageId: Id('column'),
        count: Count('tasks in the column now (not archived)'),
        avgDaysInStage: Nullable(Type.Number({ description: 'average days of the stays in the column that ended in range; null when none did' })),
      }),
    ),
    leadTimeDays: Spread,
    cycleTimeDays: Spread,
    throughput: Type.Number({ minimum: 0, description: 'tasks set to done in range per week (7 days) of the range' }),
    overdue: Count('as in TaskReport'),
    planTime: Hours('as in TaskReport'),
    factTime: Hours('as in TaskReport'),
    byAssignee: Type.Array(AssigneeRowSchema),
  },
  { description: 'ProjectReport' },
);
export type ProjectReportDto = Static<typeof ProjectReportSchema>;

const Metric = Type.Union(['total', 'created', 'finished', 'rejected', 'overdue'].map((m) => Type.Literal(m)), {
  description: 'the number whose tasks to list: total (in scope now), created, finished (set to done), rejected (set to rejected) in range, overdue',
});
export const SpaceTasksQuery = Type.Object({ ...RangeQuery.properties, ...Paging().properties, metric: Metric, projectId: Type.Optional(Id('only tasks of this project')) });
export const ReportTasksQuery = Type.Object({
  ...RangeQuery.properties,
  ...Paging().properties,
  metric: Metric,
  stageId: Type.Optional(Id('only tasks in this column now')),
  responsibleId: Type.Optional(Id('only tasks assigned to this user')),
});
export type DrillDownInput = Static<typeof ReportTasksQuery> & { projectId?: number };

export const FlowPointSchema = Type.Object({
  from: Type.String({ description: 'start of the interval (clipped to dateFrom), ISO date-time' }),
  stages: Type.Array(Type.Object({ stageId: Id('column'), count: Count('tasks in the column at the end of the interval (or now, if earlier)') })),
});

export const MembersQuery = Type.Object({ ...RangeQuery.properties, ...Paging().properties, spaceId: Type.Optional(Id('only tasks of this space')) });
export const MemberReportRowSchema = Type.Object(
  {
    userId: Id('member'),
    assigned: Count('tasks in scope assigned to the member now (not archived)'),
    finished: Count('of them, set to done in range'),
    overdue: Count('of them, overdue at the end of the range (or now, if earlier)'),
    planTime: Hours('planned hours of the assigned tasks'),
    factTime: Hours('hours the member recorded in range on tasks in scope'),
    lastActivityDate: Nullable(Type.String({ format: 'date', description: 'last day the member used the service' })),
  },
  { description: 'MemberReportRow' },
);
export type MemberReportRowDto = Static<typeof MemberReportRowSchema>;
