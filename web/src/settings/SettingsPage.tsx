import { Navigate, NavLink, Route, Routes } from 'react-router';
import { t } from '../i18n';
import { errorText } from '../common/toast';
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
  if (organization.error || spaces.error) return <p className="page-error" role="alert">{errorText(organization.error ?? spaces.error)}</p>;
  if (!organization.data || !spaces.data) return <p className="loading">{t('settings.loading')}</p>;
  const administers = isOrgAdmin(organization.data.role) || spaces.data.some((s) => s.role === 'admin');
  const tabs = [
    { path: 'members', label: t('settings.members'), element: <MembersPanel />, shown: true },
    { path: 'invites', label: t('settings.invites'), element: <InvitesPanel />, shown: administers },
    { path: 'tokens', label: t('settings.tokens'), element: <TokensPanel />, shown: true },
    { path: 'security', label: t('settings.security'), element: <SecurityPanel />, shown: true },
    { path: 'webhooks', label: t('settings.webhooks'), element: <WebhooksPanel />, shown: administers },
    { path: 'profile', label: t('profile.title'), element: <ProfilePanel />, shown: true },
  ].filter((tab) => tab.shown);
  return (
    <div className="page settings">
      <h1>{t('settings.title')}</h1>
      <nav className="settings-tabs" aria-label={t('settings.title')}>
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
