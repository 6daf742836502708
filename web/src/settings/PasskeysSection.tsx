import { useState, type FormEvent } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { ago, when } from '../common/time';
import { t } from '../i18n';
import { sessionsKey } from './SessionsSection';
import { twoFactorQuery } from './TwoFactorSection';
import { Table } from './Table';

const passkeysKey = ['passkeys'] as const;
const passkeysQuery = queryOptions({ queryKey: passkeysKey, queryFn: () => call(api.GET('/user/passkeys')) });

/**
 * Own passkeys: add one (the browser asks the device or password manager to make it), see when each
 * was last used, remove one. A passkey signs in alone, and counts as two-factor sign-in.
 */
export function PasskeysSection() {
  const { data: passkeys, error } = useQuery(passkeysQuery);
  const run = useAction();
  const [busy, setBusy] = useState(false);
  const supported = browserSupportsWebAuthn();

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name')).trim();
    setBusy(true);
    try {
      // The options' challenge is good once: a cancelled prompt starts over from here.
      await run(async () => {
        const { challengeId, options } = await call(api.POST('/user/passkeys/registration'));
        const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
        return call(api.POST('/user/passkeys', { body: { name, challengeId, response: response as never } }));
      }, passkeysKey, sessionsKey, twoFactorQuery.queryKey);
      form.reset();
    } catch {
      // Shown by useAction.
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">{t('passkeys.title')}</h2>
      <p className="muted">{t('passkeys.intro')}</p>
      {error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
      {passkeys && passkeys.length > 0 && (
        <Table columns={[t('passkeys.column.name'), t('passkeys.column.added'), t('passkeys.column.lastUsed'), '']} testId="passkeys">
          {passkeys.map((p) => (
            <tr key={p.id}>
              <td>
                {p.name}
                {p.backedUp && <span className="muted"> {t('passkeys.synced')}</span>}
              </td>
              <td title={when(p.createdAt)}>{ago(p.createdAt)}</td>
              <td title={p.lastUsedAt ? when(p.lastUsedAt) : undefined}>{p.lastUsedAt ? ago(p.lastUsedAt) : t('passkeys.never')}</td>
              <td className="actions">
                <ConfirmButton
                  label={t('passkeys.remove')}
                  name={t('passkeys.removeName', { name: p.name })}
                  question={t('passkeys.removeQuestion', { name: p.name })}
                  onConfirm={() => run(() => call(api.DELETE('/user/passkeys/{passkeyId}', { params: { path: { passkeyId: p.id } } })), passkeysKey, twoFactorQuery.queryKey)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
      {passkeys && passkeys.length === 0 && <p className="muted">{t('passkeys.none')}</p>}
      {supported ? (
        <form className="settings-form" onSubmit={add} aria-label={t('passkeys.add')}>
          <label>
            {t('passkeys.name')}
            <input name="name" required maxLength={100} placeholder={t('passkeys.namePlaceholder')} />
          </label>
          <button className="primary" disabled={busy}>
            {t('passkeys.add')}
          </button>
        </form>
      ) : (
        <p className="muted">{t('passkeys.unsupported')}</p>
      )}
    </section>
  );
}
