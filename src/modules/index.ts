import type { App } from '../platform/types.js';
import docsRoutes from './docs/docs.routes.js';
import projectDocsRoutes from './project-docs/project-docs.routes.js';
import partnerRoutes from './partners/partners.routes.js';
import serviceRoutes from './service/service.routes.js';
import authRoutes from './auth/auth.routes.js';
import userRoutes from './users/users.routes.js';
import organizationRoutes from './organizations/organizations.routes.js';
import filesRoutes from './files/files.routes.js';
import reviewRoutes from './reviews/reviews.routes.js';
import spaceRoutes from './spaces/spaces.routes.js';
import projectRoutes from './projects/projects.routes.js';
import reglamentRoutes from './reglaments/reglaments.routes.js';
import stageRoutes from './stages/stages.routes.js';
import { taskRoutes } from './tasks/index.js';
import taskPropertyRoutes from './tasks/properties/properties.routes.js';
import labelRoutes from './labels/labels.routes.js';
import subtaskRoutes from './tasks/subtasks/subtasks.routes.js';
import messageRoutes from './tasks/messages/messages.routes.js';
import timeRoutes from './time/time.routes.js';
import inspectorRoutes from './tasks/inspectors/inspectors.routes.js';
import taskSortingRoutes from './tasks/sorting/sorting.routes.js';
import tableRoutes from './tables/tables.routes.js';
import taskActionRoutes from './tasks/actions/actions.routes.js';
import taskSearchRoutes from './tasks/search/search.routes.js';
import webhookRoutes from './webhooks/webhooks.routes.js';

/** Every domain module's routes, registered in this order by buildApp. */
export const modules: Array<(app: App) => Promise<void>> = [serviceRoutes, authRoutes, userRoutes, organizationRoutes, filesRoutes, reviewRoutes, spaceRoutes, projectRoutes, stageRoutes, taskRoutes, subtaskRoutes, messageRoutes, taskPropertyRoutes, taskActionRoutes, taskSearchRoutes, docsRoutes, reglamentRoutes, projectDocsRoutes, labelRoutes, partnerRoutes, timeRoutes, inspectorRoutes, taskSortingRoutes, tableRoutes, webhookRoutes];
