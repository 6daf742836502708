import { NavLink, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, spaceQuery } from '../api/queries';
import { useMembers } from '../common/useMembers';
import { useLiveReload } from '../live/useLiveReload';
import { ReglamentView } from './ReglamentView';
import { canManageReglaments } from '../common/roles';
import { reglamentKeys, reglamentsQuery, type ReglamentItem } from './queries';
import { t } from '../i18n';
import '../common/screens.css';
import './reglaments.css';

/** A space's reglaments by group beside the open one (read it, pass it, see who passed). */
export function ReglamentsPage() {
  const params = useParams();
  const spaceId = Number(params.spaceId);
  const reglamentId = params.reglamentId ? Number(params.reglamentId) : null;
  const space = useQuery(spaceQuery(spaceId));
  const list = useQuery(reglamentsQuery(spaceId));
  const { data: me } = useQuery(meQuery);
  useLiveReload(['reglament.'], reglamentKeys.all);
  const members = useMembers();

  const error = space.error ?? list.error;
  if (error) return <p className="page-error" role="alert">{error.message}</p>;
  if (!space.data || !list.data) return <p className="loading">{t('reglaments.loading')}</p>;
  const groups = [...space.data.reglamentGroups].sort((a, b) => Number(a.order) - Number(b.order));
  const inGroup = (id: number) => list.data.filter((r) => r.reglamentColumnId === id);
  const passed = (r: ReglamentItem) => me !== undefined && r.usersPassed.some((p) => p.userId === me.id);
  return (
    <div className="split">
      <aside className="split-aside">
        <h1>{t('reglaments.heading', { space: space.data.name })}</h1>
        <nav aria-label={t('reglaments.title')}>
          {list.data.length === 0 && <p className="muted">{t('reglaments.none')}</p>}
          {groups.map(
            (g) =>
              inGroup(g.id).length > 0 && (
                <section key={g.id} aria-labelledby={`reglament-group-${g.id}`}>
                  <h2 id={`reglament-group-${g.id}`}>{g.name}</h2>
                  <ul>
                    {inGroup(g.id).map((r) => (
                      <li key={r.id}>
                        <NavLink to={`/spaces/${spaceId}/reglaments/${r.id}`}>{r.name}</NavLink>
                        {r.draft && <span className="pill warn">{t('reglaments.draft')}</span>}
                        {passed(r) && <span className="pill ok">{t('reglaments.passed')}</span>}
                      </li>
                    ))}
                  </ul>
                </section>
              ),
          )}
        </nav>
      </aside>
      <div className="split-main">
        {reglamentId !== null ? (
          <ReglamentView key={reglamentId} reglamentId={reglamentId} spaceId={spaceId} canManage={canManageReglaments(space.data.role)} members={members} />
        ) : (
          <p className="muted">{t('reglaments.pick')}</p>
        )}
      </div>
    </div>
  );
}
