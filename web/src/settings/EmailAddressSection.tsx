import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys, meQuery } from '../api/queries';
import { FormError, useSubmit } from '../common/submit';
import { t } from '../i18n';

/**
 * Settings > Profile > Email address: the account's address and whether it is confirmed, and a change
 * (the current password asked for). The new address is sent a confirmation link, the old one a note.
 */
export function EmailAddressSection() {
  const { data: me } = useQuery(meQuery);
  const client = useQueryClient();
  const { busy, error, run } = useSubmit();
  const [changedTo, setChangedTo] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    await run(async () => {
      const user = await call(api.PATCH('/user/email', { body: { email: String(data.get('email')).trim(), password: String(data.get('password')) } }));
      client.setQueryData(keys.me, user);
      form.reset();
      setChangedTo(user.email);
    });
  }

  if (!me) return null;
  return (
    <fieldset className="email-address">
      <legend>{t('emailAddress.title')}</legend>
      <p>
        {me.email} <span className="muted">{me.emailVerified ? t('emailAddress.confirmed') : t('emailAddress.unconfirmed')}</span>
      </p>
      <form onSubmit={submit} aria-label={t('emailAddress.change')}>
        <label className="field">
          <span className="field-label">{t('emailAddress.new')}</span>
          <input name="email" type="email" required maxLength={320} autoComplete="email" onChange={() => setChangedTo(null)} />
        </label>
        <label className="field">
          <span className="field-label">{t('emailAddress.password')}</span>
          <input name="password" type="password" required maxLength={200} autoComplete="current-password" />
        </label>
        <FormError error={error} />
        <div className="form-buttons">
          <button className="primary" disabled={busy}>
            {t('emailAddress.change')}
          </button>
          {changedTo && <span role="status">{t('emailAddress.changed', { email: changedTo })}</span>}
        </div>
      </form>
    </fieldset>
  );
}
