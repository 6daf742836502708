import type { App } from '../../../platform/types.js';
import coverRoutes from './cover/cover.routes.js';
import fieldRoutes from './fields.routes.js';
import peopleRoutes from './people.routes.js';

/** routes.md "Task properties": labels on tasks, description, assignees, cover, members, dates, importance, status, name. */
export default async function taskPropertyRoutes(app: App): Promise<void> {
  await fieldRoutes(app);
  await peopleRoutes(app);
  await coverRoutes(app);
}
