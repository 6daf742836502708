import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id } from '../../../platform/schemas.js';
import { Offset } from '../../../platform/http.js';

// Task lists: one request loads a board, so they default to 1000 and allow up to 10000 (routes.md).
const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000, description: 'page size (default 1000, max 10000)' })),
  offset: Offset(),
};

const statuses = (allowed: string, description: string) =>
  Type.String({ pattern: `^[${allowed}](,[${allowed}])*$`, description });
const bound = (description: string) => Type.Union([DateOnly(), DateTime()], { description });

const board = {
  statuses: Type.Optional(statuses('0-3', 'comma-separated statuses, e.g. 0,3')),
  responsibleId: Type.Optional(Id('only tasks assigned to this user')),
  dateFrom: Type.Optional(bound('only tasks due (dateEnd) at or after this date or instant')),
  dateTo: Type.Optional(bound('only tasks due (dateEnd) at or before this date (the whole day) or instant')),
};

export const ProjectTasksQuery = Type.Object({ stageId: Type.Optional(Id('only tasks of this column')), ...board, ...paging });
export const SpaceTasksQuery = Type.Object({ ...board, ...paging });
export const ArchivedTasksQuery = Type.Object({
  dateFrom: Type.Optional(bound('archived at or after')),
  dateTo: Type.Optional(bound('archived at or before (a date: the whole day)')),
  ...paging,
});
export const ClosedTasksQuery = Type.Object({
  statuses: Type.Optional(statuses('12', '1 done, 2 rejected (default both)')),
  dateFrom: Type.Optional(bound('closed (status changed) at or after')),
  dateTo: Type.Optional(bound('closed (status changed) at or before (a date: the whole day)')),
  ...paging,
});

export type TaskListQuery = Static<typeof ProjectTasksQuery> & Static<typeof ClosedTasksQuery>;
export const ProjectParams = Type.Object({ projectId: Id('project id') });
export const SpaceParams = Type.Object({ spaceId: Id('space id') });
