import type { Member } from '../api/client';
import { api, call } from '../api/client';
import { noop, useAction } from '../common/action';
import { reglamentKeys, type Reglament } from './queries';
import { t } from '../i18n';

/** Who passed the reglament (or acknowledged it); managers may clear the list so everyone passes again. */
export function PassedList({ reglament, members, canManage, spaceId }: { reglament: Reglament; members: Map<number, Member>; canManage: boolean; spaceId: number }) {
  const run = useAction();
  const clear = () => {
    if (!window.confirm(t('reglaments.clearQuestion'))) return;
    void run(() => call(api.DELETE('/reglaments/{reglamentId}/passed-users', { params: { path: { reglamentId: reglament.id } } })), reglamentKeys.one(reglament.id), reglamentKeys.list(spaceId)).catch(noop);
  };
  const passed = [...reglament.usersPassed].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <section className="section" aria-labelledby="passed-title">
      <div className="section-head">
        <h2 id="passed-title">{t('reglaments.passedCount', { count: passed.length })}</h2>
        {canManage && passed.length > 0 && (
          <button type="button" className="ghost" onClick={clear}>
            {t('reglaments.clearPasses')}
          </button>
        )}
      </div>
      {passed.length === 0 ? (
        <p className="muted">{t('reglaments.nobodyPassed')}</p>
      ) : (
        <ul className="passed" data-testid="passed-users">
          {passed.map((p) => (
            <li key={p.userId}>
              <strong>{members.get(p.userId)?.name ?? t('reglaments.userN', { id: p.userId })}</strong> · <time dateTime={p.createdAt}>{new Date(p.createdAt).toLocaleString()}</time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
