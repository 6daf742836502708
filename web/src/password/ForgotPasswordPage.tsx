import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client';
import { FormError, useSubmit } from '../common/submit';
import { AuthCard } from '../shell/AuthCard';
import { t } from '../i18n';

/**
 * "Forgot your password?": asks for the email and answers the same for every address (the server
 * answers 202 whether or not an account has it), so the page tells nobody which addresses exist.
 */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useSubmit();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    await run(async () => {
      await call(api.POST('/auth/password-reset', { body: { email } }));
      setSent(true);
    });
  }

  return (
    <AuthCard>
      <h2>{t('passwordReset.forgotTitle')}</h2>
      {sent ? (
        <p role="status">{t('passwordReset.sent')}</p>
      ) : (
        <form onSubmit={submit} aria-label={t('passwordReset.forgotTitle')}>
          <p className="muted">{t('passwordReset.forgotIntro')}</p>
          <label>
            {t('auth.email')}
            <input name="email" type="email" required autoComplete="email" />
          </label>
          <FormError error={error} />
          <button className="primary" disabled={busy}>
            {t('passwordReset.sendLink')}
          </button>
        </form>
      )}
      <p>
        <Link to="/login">{t('passwordReset.backToSignIn')}</Link>
      </p>
    </AuthCard>
  );
}
