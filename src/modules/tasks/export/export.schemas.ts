import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id } from '../../../platform/schemas.js';

// routes.md Projects 42, "CSV export": the project's tasks as a spreadsheet, one row per task.

/** The columns a CSV export may hold, in their default order. */
export const EXPORT_FIELDS = [
  'id', 'name', 'status', 'column', 'assignees', 'members', 'labels', 'importance', 'dateBegin', 'dateEnd',
  'planTime', 'factTime', 'checklist', 'subtasks', 'blockReason', 'color', 'creator', 'createdAt', 'updatedAt', 'archived',
] as const;
export type ExportField = (typeof EXPORT_FIELDS)[number];

const bound = (description: string) => Type.Union([DateOnly(), DateTime()], { description });

export const ExportBody = Type.Object({
  fields: Type.Optional(
    Type.Array(Type.Unsafe<ExportField>({ type: 'string', enum: [...EXPORT_FIELDS] }), {
      minItems: 1,
      maxItems: EXPORT_FIELDS.length,
      uniqueItems: true,
      description: `the columns, in this order (default: all, as listed): ${EXPORT_FIELDS.join(', ')}`,
    }),
  ),
  statuses: Type.Optional(
    Type.Array(Type.Integer({ minimum: 0, maximum: 3 }), { minItems: 1, maxItems: 4, uniqueItems: true, description: 'only these statuses (0 in work, 1 done, 2 rejected, 3 needs attention)' }),
  ),
  archived: Type.Optional(Type.Boolean({ default: false, description: 'include archived tasks too (default: only those on the board)' })),
  dateFrom: Type.Optional(bound('only tasks due (dateEnd) at or after this date or instant')),
  dateTo: Type.Optional(bound('only tasks due (dateEnd) at or before this date (the whole day) or instant')),
});
export type ExportInput = Static<typeof ExportBody>;

export const ExportParams = Type.Object({ projectId: Id('project id') });
