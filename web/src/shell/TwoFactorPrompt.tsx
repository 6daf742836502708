import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { errorText } from '../common/toast';
import { t } from '../i18n';

/**
 * The second step of a sign-in with two-factor on: the password answered a challenge, and the code of
 * the authenticator app (or a recovery code) turns it into a session. The challenge lasts minutes and
 * a few wrong codes end it; then the password is asked again (`onRestart`).
 */
export function TwoFactorPrompt({ challenge, onSession, onRestart }: { challenge: string; onSession: (session: string) => void; onRestart: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code')).trim();
    setBusy(true);
    setError(null);
    try {
      onSession((await call(api.POST('/auth/login/two-factor', { body: { challenge, code } }))).session);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label={t('tfp.form')}>
      <label>
        {t('tfp.label')}
        <input name="code" required autoFocus autoComplete="one-time-code" inputMode="text" minLength={6} maxLength={40} />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button className="primary" disabled={busy}>
        {t('tfp.verify')}
      </button>
      <button type="button" onClick={onRestart}>
        {t('tfp.restart')}
      </button>
    </form>
  );
}
