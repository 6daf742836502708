import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client';
import { errorText } from '../common/toast';
import { t } from '../i18n';

/**
 * "Forgot your password?": asks for the email and answers the same for every address (the server
 * answers 202 whether or not an account has it), so the page tells nobody which addresses exist.
 */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    setBusy(true);
    setError(null);
    try {
      await call(api.POST('/auth/password-reset', { body: { email } }));
      setSent(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="auth">
      <div className="auth-card">
        <h1 className="brand">Workboard</h1>
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
            {error && (
              <p className="form-error" role="alert">
                {error}
              </p>
            )}
            <button className="primary" disabled={busy}>
              {t('passwordReset.sendLink')}
            </button>
          </form>
        )}
        <p>
          <Link to="/login">{t('passwordReset.backToSignIn')}</Link>
        </p>
      </div>
    </main>
  );
}
