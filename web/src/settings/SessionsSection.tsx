import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { ago, when } from '../common/time';
import { ConfirmButton } from '../common/ConfirmButton';
import { Table } from './Table';

export const sessionsKey = ['sessions'] as const;
const sessionsQuery = queryOptions({ queryKey: sessionsKey, queryFn: () => call(api.GET('/user/sessions', { params: { query: { limit: 200 } } })) });

/** Where the caller is signed in: each session can be signed out, or every one but this. */
export function SessionsSection() {
  const { data: sessions, error } = useQuery(sessionsQuery);
  const run = useAction();
  const others = sessions?.filter((s) => !s.current).length ?? 0;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p className="muted">Where you are signed in. Signing a session out ends it at once; changing your password or turning on two-factor sign-in signs out all but this one.</p>
      {error && <p className="form-error" role="alert">{error.message}</p>}
      {sessions && (
        <Table columns={['Client', 'Address', 'Signed in', 'Last used', '']} testId="sessions">
          {sessions.map((s) => (
            <tr key={s.id}>
              <td>
                {s.userAgent ?? 'unknown client'}
                {s.current && <strong> (this session)</strong>}
              </td>
              <td>{s.ip ?? '—'}</td>
              <td title={when(s.createdAt)}>{ago(s.createdAt)}</td>
              <td title={when(s.lastUsedAt)}>{ago(s.lastUsedAt)}</td>
              <td className="actions">
                {!s.current && (
                  <ConfirmButton
                    label="Sign out"
                    name={`session ${s.id}`}
                    question="Sign this session out? It stops working at once."
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
          label="Sign out all other sessions"
          name="every other session"
          question={`Sign out ${others} other session${others === 1 ? '' : 's'}?`}
          onConfirm={() => run(() => call(api.DELETE('/user/sessions')), sessionsKey)}
        />
      )}
    </section>
  );
}
