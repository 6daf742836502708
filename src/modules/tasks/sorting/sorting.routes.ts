import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import * as S from './sorting.schemas.js';
import { sortColumn } from './sorting.service.js';

export default async function taskSortingRoutes(app: App): Promise<void> {
  app.patch(
    '/projects/:projectId/stages/:stageId/sort',
    {
      schema: {
        tags: ['Task sorting'],
        summary: "Sort a column's tasks once, for everyone (by end date, creation date, colour, importance or assignee)",
        description: 'Rewrites the column’s positions densely; empty values go last, ties keep their current order. No history is written.',
        params: S.SortParams,
        body: S.SortBody,
        response: { 200: S.SortResult },
      },
    },
    (request) => write(app, request, (ctx) => sortColumn(ctx, request.params.projectId, request.params.stageId, request.body)),
  );
}
