import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read } from '../../../platform/context.js';
import * as S from './export.schemas.js';
import { exportProjectTasks } from './export.service.js';

export default async function taskExportRoutes(app: App): Promise<void> {
  app.post(
    '/projects/:projectId/export-csv',
    {
      schema: {
        tags: ['Projects'],
        summary: "Export a project's tasks as CSV",
        description:
          'One row per task, in board order, with a header row. Names stand for ids (column, people, labels); several values share a cell, ' +
          'separated by ", ". UTF-8 with a byte-order mark, so spreadsheets read it as such. A cell that a spreadsheet would take for a ' +
          "formula (starting with =, +, -, @, tab or carriage return) is prefixed with ' .",
        params: S.ExportParams,
        body: S.ExportBody,
        response: { 200: { description: 'the CSV document', content: { 'text/csv': { schema: Type.String() } } } },
      },
    },
    async (request, reply) => {
      const csv = await read(app, request, (ctx) => exportProjectTasks(ctx, request.params.projectId, request.body));
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="project-${request.params.projectId}-tasks.csv"`)
        .header('cache-control', 'no-store');
      // A Buffer is sent as it is, past the JSON serializer.
      return reply.send(Buffer.from(csv, 'utf8') as never);
    },
  );
}
