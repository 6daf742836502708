import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { IMPORT_KINDS, IMPORT_STATUSES } from '../../db/schema/imports.js';

// Imports (issue 20, items 3 and 4): a Trello board into a new project, a CSV of tasks into a project.

/** Trello's own limit for names, descriptions and comments. */
const TEXT = 16_384;
const trelloId = Type.String({ minLength: 1, maxLength: 64 });
const text = (description?: string) => Type.String({ maxLength: TEXT, ...(description ? { description } : {}) });
const optionalDate = Type.Optional(Nullable(Type.String({ maxLength: 64 })));
const pos = Type.Optional(Type.Number({ description: 'Trello position: higher comes later' }));

/**
 * The part of Trello's board export (Board → ⋯ → Print, export and share → Export as JSON) that is
 * imported; other properties are allowed and ignored.
 */
export const TrelloBoardSchema = Type.Object(
  {
    name: Type.Optional(text('the board name: the new project’s name')),
    lists: Type.Array(Type.Object({ id: trelloId, name: text(), closed: Type.Optional(Type.Boolean()), pos }), { minItems: 1, maxItems: 1000 }),
    cards: Type.Array(
      Type.Object({
        id: trelloId,
        idList: trelloId,
        name: text(),
        desc: Type.Optional(text()),
        pos,
        due: optionalDate,
        start: optionalDate,
        dueComplete: Type.Optional(Type.Boolean()),
        closed: Type.Optional(Type.Boolean()),
        idLabels: Type.Optional(Type.Array(trelloId, { maxItems: 1000 })),
        idMembers: Type.Optional(Type.Array(trelloId, { maxItems: 1000 })),
        idChecklists: Type.Optional(Type.Array(trelloId, { maxItems: 1000 })),
        attachments: Type.Optional(
          Type.Array(Type.Object({ url: Type.Optional(Type.String({ maxLength: 4096 })), name: Type.Optional(Nullable(text())) }), { maxItems: 1000 }),
        ),
      }),
      { maxItems: 20_000 },
    ),
    checklists: Type.Optional(
      Type.Array(
        Type.Object({
          id: trelloId,
          idCard: trelloId,
          name: text(),
          pos,
          checkItems: Type.Optional(
            Type.Array(Type.Object({ name: text(), state: Type.Optional(Type.String({ maxLength: 32, description: 'complete or incomplete' })), pos }), { maxItems: 1000 }),
          ),
        }),
        { maxItems: 100_000 },
      ),
    ),
    labels: Type.Optional(Type.Array(Type.Object({ id: trelloId, name: Type.Optional(Nullable(text())), color: Type.Optional(Nullable(Type.String({ maxLength: 32 }))) }), { maxItems: 1000 })),
    members: Type.Optional(
      Type.Array(
        Type.Object({
          id: trelloId,
          fullName: Type.Optional(Nullable(text())),
          username: Type.Optional(Nullable(text())),
          email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
        }),
        { maxItems: 10_000 },
      ),
    ),
    actions: Type.Optional(
      Type.Array(
        Type.Object({
          type: Type.String({ maxLength: 64 }),
          date: optionalDate,
          idMemberCreator: Type.Optional(Nullable(trelloId)),
          memberCreator: Type.Optional(Nullable(Type.Object({ fullName: Type.Optional(Nullable(text())), username: Type.Optional(Nullable(text())) }))),
          data: Type.Optional(Type.Object({ text: Type.Optional(text()), card: Type.Optional(Type.Object({ id: Type.Optional(trelloId) })) })),
        }),
        { maxItems: 500_000 },
      ),
    ),
  },
  { description: "A Trello board's JSON export" },
);
export type TrelloBoard = Static<typeof TrelloBoardSchema>;

export const ImportReportSchema = Type.Object(
  {
    counts: Type.Record(Type.String(), Type.Integer(), { description: 'what was created, per kind (columns, tasks, archivedTasks, subtasks, comments, labels, …)' }),
    skipped: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() }), { description: 'what was left out or changed, and why' }),
  },
  { description: 'what was created, and what was left out and why' },
);

export const ImportJobSchema = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.Unsafe<(typeof IMPORT_KINDS)[number]>({ type: 'string', enum: [...IMPORT_KINDS] }),
    status: Type.Unsafe<(typeof IMPORT_STATUSES)[number]>({ type: 'string', enum: [...IMPORT_STATUSES] }),
    spaceId: Nullable(Type.Integer()),
    projectId: Nullable(Type.Integer({ description: 'the project filled (CSV) or created (Trello, once it exists)' })),
    creatorId: Nullable(Type.Integer()),
    total: Type.Integer({ description: 'tasks to import' }),
    processed: Type.Integer({ description: 'tasks imported so far' }),
    report: Nullable(ImportReportSchema),
    error: Nullable(Type.String()),
    createdAt: DateTime(),
    finishedAt: Nullable(DateTime()),
  },
  { description: 'an import and its progress' },
);
export type ImportJobDto = Static<typeof ImportJobSchema>;

export const ImportParams = Type.Object({ importId: Id('import job id') });
export const SpaceParams = Type.Object({ spaceId: Id('space id') });
export const ProjectParams = Type.Object({ projectId: Id('project id') });

export const CsvPreviewSchema = Type.Object({
  mapping: Type.Array(
    Type.Object({
      header: Type.String(),
      field: Nullable(Type.String({ description: 'the export column it was matched to; null: not a column of the export' })),
      imported: Type.Boolean({ description: 'false for columns the export writes but an import cannot set (ID, Created, …)' }),
    }),
  ),
  rows: Type.Integer({ description: 'data rows (the header excluded)' }),
  errors: Type.Array(Type.Object({ row: Type.Integer({ description: '1-based, the header being row 1' }), column: Nullable(Type.String()), message: Type.String() })),
});
