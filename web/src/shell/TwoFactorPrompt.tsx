import type { FormEvent } from 'react';
import { api, call } from '../api/client';
import { FormError, useSubmit } from '../common/submit';
import { t } from '../i18n';

/**
 * The second step of a sign-in with two-factor on: the password answered a challenge, and the code of
 * the authenticator app (or a recovery code) turns it into a session. The challenge lasts minutes and
 * a few wrong codes end it; then the password is asked again (`onRestart`).
 */
export function TwoFactorPrompt({ challenge, onSession, onRestart }: { challenge: string; onSession: (session: string) => void; onRestart: () => void }) {
  const { busy, error, run } = useSubmit();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code')).trim();
    await run(async () => onSession((await call(api.POST('/auth/login/two-factor', { body: { challenge, code } }))).session));
  }

  return (
    <form onSubmit={submit} aria-label={t('tfp.form')}>
      <label>
        {t('tfp.label')}
        <input name="code" required autoFocus autoComplete="one-time-code" inputMode="text" minLength={6} maxLength={40} />
      </label>
      <FormError error={error} />
      <button className="primary" disabled={busy}>
        {t('tfp.verify')}
      </button>
      <button type="button" onClick={onRestart}>
        {t('tfp.restart')}
      </button>
    </form>
  );
}
