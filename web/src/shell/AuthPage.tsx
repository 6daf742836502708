import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client';
import { FormError, useSubmit } from '../common/submit';
import { AuthCard } from './AuthCard';
import { useSession } from './session';
import { SingleSignOnButton } from './SingleSignOn';
import { TwoFactorPrompt } from './TwoFactorPrompt';
import { PasskeySecondStep, PasskeySignInButton } from './PasskeySignIn';
import { t } from '../i18n';

/**
 * Sign in or sign up. On an invite link's page (`inviteToken`), signing up joins the link's space and
 * organization instead of creating one; `intro` says what the link leads to.
 */
export function AuthPage({ inviteToken, intro, onSignedIn }: { inviteToken?: string; intro?: ReactNode; onSignedIn?: (mode: 'in' | 'up') => void }) {
  const { signIn } = useSession();
  const [mode, setMode] = useState<'in' | 'up'>(inviteToken ? 'up' : 'in');
  const { busy, error, run } = useSubmit();
  // Set when the password was right and a two-factor code must follow.
  const [challenge, setChallenge] = useState<string | null>(null);
  const [methods, setMethods] = useState<string[]>([]);
  const passkeySignedIn = (session: string) => {
    signIn(session);
    onSignedIn?.('in');
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    await run(async () => {
      const answer =
        mode === 'up'
          ? await call(api.POST('/auth/register', { body: { email, password, name: String(form.get('name')), ...(inviteToken ? { inviteToken } : {}) } }))
          : await call(api.POST('/auth/login', { body: { email, password } }));
      if ('challenge' in answer) {
        setMethods(answer.methods);
        return setChallenge(answer.challenge);
      }
      signIn(answer.session);
      onSignedIn?.(mode);
    });
  }

  return (
    <AuthCard>
      {intro}
      {challenge && methods.includes('passkey') && (
        <PasskeySecondStep challenge={challenge} onSession={passkeySignedIn} onRestart={methods.includes('totp') ? undefined : () => setChallenge(null)} />
      )}
      {challenge && methods.includes('totp') && (
        <TwoFactorPrompt
          challenge={challenge}
          onSession={(session) => {
            signIn(session);
            onSignedIn?.('in');
          }}
          onRestart={() => setChallenge(null)}
        />
      )}
      {!challenge && !inviteToken && <SingleSignOnButton />}
      {!challenge && !inviteToken && <PasskeySignInButton onSession={passkeySignedIn} />}
      {!challenge && (
        <>
          <div className="tabs" role="tablist" aria-label={t('auth.account')}>
            <button role="tab" aria-selected={mode === 'in'} onClick={() => setMode('in')} type="button">
              {t('auth.signIn')}
            </button>
            <button role="tab" aria-selected={mode === 'up'} onClick={() => setMode('up')} type="button">
              {t('auth.signUp')}
            </button>
          </div>
          <form onSubmit={submit} aria-label={mode === 'up' ? t('auth.signUp') : t('auth.signIn')}>
            {mode === 'up' && (
              <label>
                {t('auth.name')}
                <input name="name" required autoComplete="name" maxLength={200} />
              </label>
            )}
            <label>
              {t('auth.email')}
              <input name="email" type="email" required autoComplete="email" />
            </label>
            <label>
              {t('auth.password')}
              <input name="password" type="password" required minLength={mode === 'up' ? 8 : 1} autoComplete={mode === 'up' ? 'new-password' : 'current-password'} />
            </label>
            <FormError error={error} />
            <button className="primary" disabled={busy}>
              {mode === 'up' ? t('auth.createAccount') : t('auth.signIn')}
            </button>
          </form>
          {mode === 'in' && !inviteToken && (
            <p>
              <Link to="/forgot-password">{t('passwordReset.forgotLink')}</Link>
            </p>
          )}
        </>
      )}
    </AuthCard>
  );
}
