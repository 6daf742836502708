import { Navigate, Route, Routes } from 'react-router';
import { SessionProvider, useSession } from './session';
import { AuthPage } from './AuthPage';
import { Layout } from './Layout';
import { Home } from './Home';
import { BoardPage } from '../board/BoardPage';
import { knowledgeRoutes, publicRoute } from './knowledgeRoutes';

function Routed() {
  const { signedIn } = useSession();
  if (!signedIn) {
    return (
      <Routes>
        <Route path="/login" element={<AuthPage />} />
        {publicRoute}
        <Route path="*" element={<Navigate to="/login" replace />} />
      </Routes>
    );
  }
  return (
    <Routes>
      <Route path="/login" element={<Navigate to="/" replace />} />
      {publicRoute}
      <Route element={<Layout />}>
        <Route index element={<Home />} />
        <Route path="projects/:projectId" element={<BoardPage />} />
        <Route path="projects/:projectId/tasks/:taskId" element={<BoardPage />} />
        {knowledgeRoutes}
        <Route path="*" element={<Home />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <SessionProvider>
      <Routed />
    </SessionProvider>
  );
}
