import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { ago, when } from '../common/time';
import { ConfirmButton } from '../common/ConfirmButton';
import { Table } from './Table';
import { t, tn } from '../i18n';
import { errorText } from '../common/toast';

export const sessionsKey = ['sessions'] as const;
const sessionsQuery = queryOptions({ queryKey: sessionsKey, queryFn: () => call(api.GET('/user/sessions', { params: { query: { limit: 200 } } })) });

/** Where the caller is signed in: each session can be signed out, or every one but this. */
export function SessionsSection() {
  const { data: sessions, error } = useQuery(sessionsQuery);
  const run = useAction();
  const others = sessions?.filter((s) => !s.current).length ?? 0;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('sessions.title')}</h2>
      <p className="muted">{t('sessions.intro')}</p>
      {error && <p className="form-error" role="alert">{errorText(error)}</p>}
      {sessions && (
        <Table columns={[t('sessions.client'), t('sessions.address'), t('sessions.signedIn'), t('sessions.lastUsed'), '']} testId="sessions">
          {sessions.map((s) => (
            <tr key={s.id}>
              <td>
                {s.userAgent ?? t('sessions.unknown')}
                {s.current && <strong> {t('sessions.current')}</strong>}
              </td>
              <td>{s.ip ?? '—'}</td>
              <td title={when(s.createdAt)}>{ago(s.createdAt)}</td>
              <td title={when(s.lastUsedAt)}>{ago(s.lastUsedAt)}</td>
              <td className="actions">
                {!s.current && (
                  <ConfirmButton
                    label={t('sessions.signOut')}
                    name={t('sessions.sessionN', { id: s.id })}
                    question={t('sessions.signOutQuestion')}
                    onConfirm={() => run(() => call(api.DELETE('/user/sessions/{sessionId}', { params: { path: { sessionId: s.id } } })), sessionsKey)}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {others > 0 && (
        <ConfirmButton
          label={t('sessions.signOutOthers')}
          name={t('sessions.everyOther')}
          question={tn('sessions.signOutOthersQuestion', others)}
          onConfirm={() => run(() => call(api.DELETE('/user/sessions')), sessionsKey)}
        />
      )}
    </section>
  );
}
