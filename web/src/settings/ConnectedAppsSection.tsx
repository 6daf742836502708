import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { ago, when } from '../common/time';
import { ConfirmButton } from '../common/ConfirmButton';
import { errorText } from '../common/toast';
import { scopeLabel } from '../oauth/scopes';
import { Table } from './Table';
import { t } from '../i18n';

export const connectedAppsKey = ['connected-apps'] as const;
const connectedAppsQuery = queryOptions({ queryKey: connectedAppsKey, queryFn: () => call(api.GET('/user/connected-apps')) });

/**
 * Settings > Profile: the apps (AI assistants connected through OAuth) the user allowed to act for
 * them, with what each may do and when it last did; revoking one ends its access at once.
 */
export function ConnectedAppsSection() {
  const { data: apps, error } = useQuery(connectedAppsQuery);
  const run = useAction();
  return (
    <section aria-labelledby="connected-apps-title">
      <h2 id="connected-apps-title">{t('connectedApps.title')}</h2>
      <p className="muted">{t('connectedApps.intro')}</p>
      {error && <p className="form-error" role="alert">{errorText(error)}</p>}
      {apps && apps.length === 0 && <p>{t('connectedApps.none')}</p>}
      {apps && apps.length > 0 && (
        <Table columns={[t('connectedApps.app'), t('connectedApps.access'), t('connectedApps.organization'), t('connectedApps.granted'), t('connectedApps.lastUsed'), '']} testId="connected-apps">
          {apps.map((app) => (
            <tr key={app.id}>
              <td>
                {app.client.name}
                {app.client.redirectHosts.length > 0 && <span className="muted"> · {app.client.redirectHosts.join(', ')}</span>}
              </td>
              <td>{app.scopes.map(scopeLabel).join(', ')}</td>
              <td>{app.organization.name}</td>
              <td title={when(app.grantedAt)}>{ago(app.grantedAt)}</td>
              <td title={when(app.lastUsedAt)}>{app.lastUsedAt ? ago(app.lastUsedAt) : t('connectedApps.never')}</td>
              <td className="actions">
                <ConfirmButton
                  label={t('connectedApps.revoke')}
                  name={app.client.name}
                  question={t('connectedApps.revokeQuestion')}
                  onConfirm={() => run(() => call(api.DELETE('/user/connected-apps/{grantId}', { params: { path: { grantId: app.id } } })), connectedAppsKey)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
