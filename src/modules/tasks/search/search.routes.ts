import type { App } from '../../../platform/types.js';
import { read } from '../../../platform/context.js';
import { pageOf, setPageHeaders } from '../../../platform/http.js';
import { TaskList, TASK_PAGE } from '../actions/actions.schemas.js';
import { SearchQuery } from './search.schemas.js';
import { RANKED_WINDOW, searchTasks } from './search.service.js';

export default async function searchRoutes(app: App): Promise<void> {
  app.get(
    '/tasks/search',
    {
      schema: {
        tags: ['Kanban task actions'],
        summary: 'Search tasks by words of their name, description or chat, best match first',
        description:
          'Only tasks on boards of spaces the caller can read; the boards by default, the archive with `archived=true`. ' +
          `The newest ${RANKED_WINDOW} matches come best match first; a search matching more answers the older ones after them, newest first. ` +
          '`X-Total-Count` counts every match.',
        querystring: SearchQuery,
        response: { 200: TaskList },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => searchTasks(ctx, request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query, TASK_PAGE));
      return result.items;
    },
  );
}
