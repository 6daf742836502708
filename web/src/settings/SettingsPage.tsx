import { Navigate, NavLink, Route, Routes } from 'react-router';
import { t } from '../i18n';
import { ProfilePanel } from './ProfilePanel';
import { useQuery } from '@tanstack/react-query';
import { organizationQuery, spacesQuery } from '../api/queries';
import { InvitesPanel } from './InvitesPanel';
import { MembersPanel } from './MembersPanel';
import { SecurityPanel } from './SecurityPanel';
import { isOrgAdmin } from './model';
import { TokensPanel } from './TokensPanel';
import { WebhooksPanel } from './WebhooksPanel';
import '../common/page.css';
import './settings.css';

/**
 * Organization and personal settings. Tabs a role cannot use are not shown (the API refuses them
 * anyway): invite links and webhooks need an administered space or the organization's admin role.
 */
export function SettingsPage() {
  const organization = useQuery(organizationQuery);
  const spaces = useQuery(spacesQuery);
  if (organization.error || spaces.error) return <p className="page-error" role="alert">{(organization.error ?? spaces.error)!.message}</p>;
  if (!organization.data || !spaces.data) return <p className="loading">Loading settings…</p>;
  const administers = isOrgAdmin(organization.data.role) || spaces.data.some((s) => s.role === 'admin');
  const tabs = [
    { path: 'members', label: 'Members', element: <MembersPanel />, shown: true },
    { path: 'invites', label: 'Invite links', element: <InvitesPanel />, shown: administers },
    { path: 'tokens', label: 'API tokens', element: <TokensPanel />, shown: true },
    { path: 'security', label: 'Security', element: <SecurityPanel />, shown: true },
    { path: 'webhooks', label: 'Webhooks', element: <WebhooksPanel />, shown: administers },
    { path: 'profile', label: t('profile.title'), element: <ProfilePanel />, shown: true },
  ].filter((tab) => tab.shown);
  return (
    <div className="page settings">
      <h1>Settings</h1>
      <nav className="settings-tabs" aria-label="Settings">
        {tabs.map((tab) => (
          <NavLink key={tab.path} to={`/settings/${tab.path}`}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Routes>
        {tabs.map((tab) => (
          <Route key={tab.path} path={tab.path} element={tab.element} />
        ))}
        <Route path="*" element={<Navigate to="/settings/members" replace />} />
      </Routes>
    </div>
  );
}
