import { Route } from 'react-router';
import { AssistantPage } from '../assistant/AssistantPage';
import { ProjectReportPage } from '../analytics/ProjectReportPage';
import { ReportsPage, UserReportPage } from '../analytics/ReportsPage';
import { SpaceAnalyticsPage } from '../analytics/SpaceAnalyticsPage';
import { DocsPage } from '../docs/DocsPage';
import { PublicPage } from '../docs/PublicPage';
import { ReglamentsPage } from '../reglaments/ReglamentsPage';

// Kept apart from App.tsx so screens added to the router in parallel touch it by one line each.

/** Documentation, reglaments, analytics and the assistant: inside the signed-in layout. */
export const knowledgeRoutes = (
  <>
    <Route path="spaces/:spaceId/docs" element={<DocsPage />} />
    <Route path="spaces/:spaceId/docs/:pageId" element={<DocsPage />} />
    <Route path="spaces/:spaceId/reglaments" element={<ReglamentsPage />} />
    <Route path="spaces/:spaceId/reglaments/:reglamentId" element={<ReglamentsPage />} />
    <Route path="spaces/:spaceId/assistant" element={<AssistantPage />} />
    <Route path="analytics" element={<ReportsPage />} />
    <Route path="analytics/users/:userId" element={<UserReportPage />} />
    <Route path="analytics/spaces/:spaceId" element={<SpaceAnalyticsPage />} />
    <Route path="analytics/projects/:projectId" element={<ProjectReportPage />} />
  </>
);

/** A published page: readable signed in or out, without the app's layout. */
export const publicRoute = <Route path="/public/:publicToken" element={<PublicPage />} />;
