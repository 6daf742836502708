import { NavLink } from 'react-router';
import type { Space } from '../api/client';
import { canSeeProjectReport } from '../common/roles';
import './space-links.css';
import { t } from '../i18n';

/** A space's other screens beside its projects: documentation, reglaments, analytics, assistant. */
export function SpaceLinks({ space }: { space: Space }) {
  const base = `/spaces/${space.id}`;
  return (
    <li className="space-links">
      <NavLink to={`${base}/docs`} aria-label={t('links.docsOf', { name: space.name })}>
        {t('links.docs')}
      </NavLink>
      <NavLink to={`${base}/reglaments`} aria-label={t('links.reglamentsOf', { name: space.name })}>
        {t('links.reglaments')}
      </NavLink>
      {canSeeProjectReport(space.role) && (
        <NavLink to={`/analytics/spaces/${space.id}`} aria-label={t('links.analyticsOf', { name: space.name })}>
          {t('links.analytics')}
        </NavLink>
      )}
      <NavLink to={`${base}/assistant`} aria-label={t('links.assistantOf', { name: space.name })}>
        {t('links.assistant')}
      </NavLink>
    </li>
  );
}

export function ReportsLink() {
  return (
    <p className="reports-link">
      <NavLink to="/analytics" end>
        {t('links.reports')}
      </NavLink>
    </p>
  );
}
