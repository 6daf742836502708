import { Navigate, Route, Routes } from 'react-router';
import { SessionProvider, useSession } from './session';
import { AuthPage } from './AuthPage';
import { SingleSignOnCallback } from './SingleSignOn';
import { Layout } from './Layout';
import { TwoFactorGate } from './TwoFactorGate';
import { Home } from './Home';
import { BoardPage } from '../board/BoardPage';
import { AcceptInvitePage } from '../invite/AcceptInvitePage';
import { AcceptInvitationPage } from '../invite/AcceptInvitationPage';
import { SearchPage } from '../search/SearchPage';
import { SettingsPage } from '../settings/SettingsPage';
import { ConsentPage } from '../oauth/ConsentPage';
import { knowledgeRoutes, publicRoute } from './knowledgeRoutes';
import { ForgotPasswordPage } from '../password/ForgotPasswordPage';
import { ResetPasswordPage } from '../password/ResetPasswordPage';
import { VerifyEmailPage } from '../password/VerifyEmailPage';

function Routed() {
  const { signedIn } = useSession();
  if (!signedIn) {
    return (
      <Routes>
        <Route path="/login" element={<AuthPage />} />
        <Route path="/auth/oidc/callback" element={<SingleSignOnCallback />} />
        <Route path="/oauth/:uid" element={<ConsentPage />} />
        <Route path="/invite/:token" element={<AcceptInvitePage />} />
        <Route path="/invitations/:token" element={<AcceptInvitationPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route path="/verify-email" element={<VerifyEmailPage />} />
        {publicRoute}
        <Route path="*" element={<Navigate to="/login" replace />} />
      </Routes>
    );
  }
  return (
    <Routes>
      <Route path="/login" element={<Navigate to="/" replace />} />
      {/* An app asking for access: the consent screen, outside the layout (and its two-factor gate, which the server applies anyway). */}
      <Route path="/oauth/:uid" element={<ConsentPage />} />
      {/* The emailed link works signed in too (the reset signs every session out). */}
      <Route path="/reset-password" element={<ResetPasswordPage />} />
      <Route path="/verify-email" element={<VerifyEmailPage />} />
      {publicRoute}
      <Route
        element={
          <TwoFactorGate>
            <Layout />
          </TwoFactorGate>
        }
      >
        <Route index element={<Home />} />
        <Route path="projects/:projectId" element={<BoardPage />} />
        <Route path="projects/:projectId/tasks/:taskId" element={<BoardPage />} />
        <Route path="projects/:projectId/archive" element={<BoardPage />} />
        <Route path="search/*" element={<SearchPage />} />
        <Route path="settings/*" element={<SettingsPage />} />
        <Route path="invite/:token" element={<AcceptInvitePage />} />
        <Route path="invitations/:token" element={<AcceptInvitationPage />} />
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
