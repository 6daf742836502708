import { Type, type Static } from 'typebox';
import { Id } from '../../platform/schemas.js';
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
