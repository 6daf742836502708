import { NavLink } from 'react-router';
import type { Space } from '../api/client';
import { canSeeProjectReport } from '../common/roles';
import './space-links.css';

/** A space's other screens beside its projects: documentation, reglaments, analytics, assistant. */
export function SpaceLinks({ space }: { space: Space }) {
  const base = `/spaces/${space.id}`;
  return (
    <li className="space-links">
      <NavLink to={`${base}/docs`} aria-label={`Docs of ${space.name}`}>
        Docs
      </NavLink>
      <NavLink to={`${base}/reglaments`} aria-label={`Reglaments of ${space.name}`}>
        Reglaments
      </NavLink>
      {canSeeProjectReport(space.role) && (
        <NavLink to={`/analytics/spaces/${space.id}`} aria-label={`Analytics of ${space.name}`}>
          Analytics
        </NavLink>
      )}
      <NavLink to={`${base}/assistant`} aria-label={`Assistant of ${space.name}`}>
        Assistant
      </NavLink>
    </li>
  );
}

export function ReportsLink() {
  return (
    <p className="reports-link">
      <NavLink to="/analytics" end>
        Reports
      </NavLink>
    </p>
  );
}
