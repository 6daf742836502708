import { NavLink, Outlet } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { meQuery, organizationsQuery } from '../api/queries';
import { errorText, useToast } from '../common/toast';
import { NotificationBell } from '../notifications/Bell';
import { SearchBox } from '../search/SearchBox';
import { Sidebar } from './Sidebar';
import { useLiveStatus, useSession } from './session';

function OrganizationSwitcher() {
  const { data: organizations } = useQuery(organizationsQuery);
  const { switched } = useSession();
  const client = useQueryClient();
  const toast = useToast();
  const active = organizations?.find((o) => o.active);
  if (!organizations) return null;
  return (
    <label className="org-switcher">
      <span className="sr-only">Organization</span>
      <select
        value={active?.id ?? ''}
        onChange={async (e) => {
          try {
            await call(api.PATCH('/user/organizations/active', { body: { organizationId: Number(e.target.value) } }));
            switched();
            await client.invalidateQueries();
          } catch (err) {
            toast(errorText(err), 'error');
          }
        }}
      >
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name ?? `Organization ${o.id}`}
          </option>
        ))}
      </select>
    </label>
  );
}

function LiveIndicator() {
  const status = useLiveStatus();
  const text = status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Offline';
  return (
    <span className={`live live-${status}`} role="status" title="Real-time updates" data-testid="live-status" data-status={status}>
      {text}
    </span>
  );
}

export function Layout() {
  const { data: me } = useQuery(meQuery);
  const { signOut } = useSession();
  return (
    <div className="layout">
      <header className="topbar">
        <a className="brand" href="/app/">
          Workboard
        </a>
        <OrganizationSwitcher />
        <SearchBox />
        <span className="spacer" />
        <NotificationBell />
        <NavLink className="topbar-link" to="/settings">
          Settings
        </NavLink>
        <LiveIndicator />
        {me && <span className="me">{me.name}</span>}
        <button className="ghost" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <Sidebar />
      <main className="content" id="main">
        <Outlet />
      </main>
    </div>
  );
}
