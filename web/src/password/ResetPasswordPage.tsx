import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, call } from '../api/client';
import { FormError, useSubmit } from '../common/submit';
import { AuthCard } from '../shell/AuthCard';
import { t } from '../i18n';

/**
 * The emailed link's page (`/app/reset-password?token=…`, `&claim=1` for an imported member's first
 * password): a new password, with a show toggle, sent with the link's token. A used, expired or
 * unknown link is told in words (RESET_TOKEN_INVALID in the error catalogue) with a way to ask again.
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const claim = params.get('claim') === '1';
  const [shown, setShown] = useState(false);
  const [done, setDone] = useState(false);
  const { busy, error, run } = useSubmit();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password'));
    await run(async () => {
      await call(api.POST('/auth/password-reset/confirm', { body: { token, password } }));
      setDone(true);
    });
  }

  const title = claim ? t('passwordReset.claimTitle') : t('passwordReset.resetTitle');
  return (
    <AuthCard>
      <h2>{title}</h2>
      {!token ? (
        <p role="alert">{t('passwordReset.noToken')}</p>
      ) : done ? (
        <p role="status">{t('passwordReset.done')}</p>
      ) : (
        <form onSubmit={submit} aria-label={title}>
          <label>
            {t('passwordReset.newPassword')}
            <input name="password" type={shown ? 'text' : 'password'} required minLength={8} maxLength={200} autoComplete="new-password" />
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={shown} onChange={(e) => setShown(e.target.checked)} /> {t('passwordReset.show')}
          </label>
          <FormError error={error} />
          <button className="primary" disabled={busy}>
            {t('passwordReset.save')}
          </button>
        </form>
      )}
      <p>
        {done ? <Link to="/login">{t('passwordReset.signIn')}</Link> : <Link to="/forgot-password">{t('passwordReset.askAgain')}</Link>}
      </p>
    </AuthCard>
  );
}
