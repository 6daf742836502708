import { useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Menu, Settings, LogOut, X } from 'lucide-react';
import { api, call } from '../api/client';
import { meQuery, organizationsQuery } from '../api/queries';
import { errorText, useToast } from '../common/toast';
import { NotificationBell } from '../notifications/Bell';
import { SearchBox } from '../search/SearchBox';
import { NetworkBanner } from './NetworkBanner';
import { Shortcuts } from './Shortcuts';
import { Sidebar } from './Sidebar';
import { setLanguage, t } from '../i18n';
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
      <span className="sr-only">{t('shell.organization')}</span>
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
            {o.name ?? t('shell.organizationN', { id: o.id })}
          </option>
        ))}
      </select>
    </label>
  );
}

function LiveIndicator() {
  const status = useLiveStatus();
  const text = status === 'live' ? t('shell.live') : status === 'connecting' ? t('shell.connecting') : t('shell.offline');
  return (
    <span className={`live live-${status}`} role="status" title={t('shell.realtime')} data-testid="live-status" data-status={status}>
      {text}
    </span>
  );
}

/** The signed-in person's own controls: in the top bar on wide screens, in the menu drawer on narrow ones. */
function Account({ className }: { className: string }) {
  const { data: me } = useQuery(meQuery);
  const { signOut } = useSession();
  return (
    <div className={className}>
      <OrganizationSwitcher />
      <NavLink className="topbar-link" to="/settings">
        <Settings aria-hidden="true" size={16} /> {t('shell.settings')}
      </NavLink>
      {me && <span className="me">{me.name}</span>}
      <button className="ghost sign-out" onClick={() => void signOut()}>
        <LogOut aria-hidden="true" size={16} /> {t('shell.signOut')}
      </button>
    </div>
  );
}

/** The profile's language wins over the browser's: this browser keeps it, and the page renders again in it. */
function useProfileLanguage() {
  const { data: me } = useQuery(meQuery);
  const wanted = me?.language;
  useEffect(() => {
    if (wanted && setLanguage(wanted)) location.reload();
  }, [wanted]);
}

export function Layout() {
  useProfileLanguage();
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  // A link followed in the menu drawer closes it.
  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);
  return (
    <div className={`layout ${menuOpen ? 'menu-open' : ''}`}>
      <a className="skip-link" href={pathname.startsWith('/projects/') ? '#board' : '#main'}>
        {pathname.startsWith('/projects/') ? t('skip.toBoard') : t('skip.toContent')}
      </a>
      <Shortcuts />
      <header className="topbar">
        <button type="button" className="ghost menu-button" aria-expanded={menuOpen} aria-controls="sidebar" aria-label={menuOpen ? t('shell.closeMenu') : t('shell.menu')} onClick={() => setMenuOpen(!menuOpen)}>
          {menuOpen ? <X aria-hidden="true" size={20} /> : <Menu aria-hidden="true" size={20} />}
        </button>
        <a className="brand" href="/app/">
          Workboard
        </a>
        <SearchBox />
        <span className="spacer" />
        <NotificationBell />
        <LiveIndicator />
        <Account className="account account-wide" />
      </header>
      <NetworkBanner />
      {menuOpen && <div className="menu-backdrop" onClick={() => setMenuOpen(false)} />}
      <Sidebar footer={<Account className="account account-narrow" />} />
      <main className="content" id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
