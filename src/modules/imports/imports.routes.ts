import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { wakeJob } from '../../platform/jobs.js';
import * as S from './imports.schemas.js';
import * as imports from './imports.service.js';
import { previewCsvImport } from './csv.service.js';
import { MAX_ROWS } from './csv.map.js';
import { IMPORT_JOB, registerImports } from './imports.worker.js';

const tags = ['Projects'];
/** A board export with its actions runs to megabytes; this route alone takes more than the default body. */
export const TRELLO_BODY_LIMIT = 25 * 1024 * 1024;
const CSV_BODY_LIMIT = 5 * 1024 * 1024;
const CSV_BODY = { content: { 'text/csv': { schema: { type: 'string', minLength: 1, maxLength: CSV_BODY_LIMIT, description: 'the CSV document, UTF-8, header row first' } } } };

/** The body as text, or 415: another content type parsed as JSON reaches the handler as an object. */
function csvText(body: unknown): string {
  if (typeof body !== 'string') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the CSV as the body with content-type text/csv');
  return body;
}

const CSV_DESCRIPTION =
  `The body is the CSV itself (content-type text/csv, UTF-8, at most ${MAX_ROWS} rows), in the columns of POST /projects/{projectId}/export-csv: ` +
  'headers are matched by name, case-insensitively (the field keys of the export are accepted too); ID, Spent hours, Checklist, Subtasks, ' +
  'Creator, Created and Updated are read-only and ignored. Column, Labels, Assignees and Members name existing columns, organization ' +
  'labels and members of the project’s spaces (by name or email; several separated by ", "). An empty Column means the first column.';

export default async function importRoutes(app: App): Promise<void> {
  registerImports(app);
  const wake = wakeJob(app, IMPORT_JOB);
  // Scoped to this plugin: the rest of the API speaks JSON and multipart only.
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post(
    '/spaces/:spaceId/imports/trello',
    {
      bodyLimit: Math.max(app.config.bodyLimitBytes, TRELLO_BODY_LIMIT),
      schema: {
        tags,
        summary: 'Import a Trello board into a new project of the space (space editor)',
        description:
          'The body is the board’s JSON export (Trello: Menu → Print, export and share → Export as JSON, at most 25 MB). Answers 202 with the ' +
          'import job; GET /imports/{importId} (and the import.progress / import.finished events) follow it. Lists become columns in order ' +
          '(an archived list’s cards become archived tasks of the first column), cards tasks in order, checklists subtasks, labels ' +
          'organization labels (one of the same name is reused), comments chat messages at their original time (by the member with the ' +
          'same email, else by the importing user naming the author), due dates dateEnd, dueComplete done, archived cards archived tasks, ' +
          'attachment links lines of the description. The report says what was left out and why. A failed import leaves nothing.',
        params: S.SpaceParams,
        body: S.TrelloBoardSchema,
        response: { 202: S.ImportJobSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await write(app, request, (ctx) => imports.startTrelloImport(ctx, request.params.spaceId, request.body, wake))),
  );

  app.post(
    '/projects/:projectId/imports/csv/preview',
    {
      schema: {
        tags,
        summary: 'Check a CSV of tasks before importing it: the header mapping and the errors of each row (nothing is written)',
        description: CSV_DESCRIPTION,
        params: S.ProjectParams,
        body: CSV_BODY,
        response: { 200: S.CsvPreviewSchema },
      },
    },
    (request) => read(app, request, (ctx) => previewCsvImport(ctx, request.params.projectId, csvText(request.body))),
  );

  app.post(
    '/projects/:projectId/imports/csv',
    {
      schema: {
        tags,
        summary: 'Import a CSV of tasks into the project (member); a CSV with any bad row is refused whole',
        description: `${CSV_DESCRIPTION} Answers 202 with the import job; a CSV with errors answers 400 listing every bad row (paths /rows/{row}/{column}) and writes nothing.`,
        params: S.ProjectParams,
        body: CSV_BODY,
        response: { 202: S.ImportJobSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await write(app, request, (ctx) => imports.startCsvImport(ctx, request.params.projectId, csvText(request.body), wake))),
  );

  app.get(
    '/imports/:importId',
    {
      schema: {
        tags,
        summary: 'An import and its progress (its creator, or an admin of its space)',
        params: S.ImportParams,
        response: { 200: S.ImportJobSchema },
      },
    },
    (request) => read(app, request, (ctx) => imports.getImport(ctx, request.params.importId)),
  );
}
