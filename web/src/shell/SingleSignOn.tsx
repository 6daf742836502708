import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { api, call } from '../api/client';
import { errorText } from '../common/toast';
import { useSession } from './session';

import { SIGNED_IN_WITH_OIDC } from './oidcSignOut';
import { t } from '../i18n';
import { takeReturnPath } from '../oauth/returnPath';

// The sign-in in flight stays in this tab only: the callback completes where the sign-in began.
const TRANSACTION_KEY = 'workboard.oidc.transaction';

export function useOidcStatus() {
  return useQuery({ queryKey: ['auth', 'oidc'], queryFn: () => call(api.GET('/auth/oidc')), staleTime: Infinity });
}

/** "Sign in with <name>" when single sign-on is configured; nothing otherwise. */
export function SingleSignOnButton() {
  const status = useOidcStatus();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!status.data?.enabled) return null;

  async function start() {
    setBusy(true);
    setError(null);
    try {
      const { url, transaction } = await call(api.GET('/auth/oidc/authorization-url'));
      sessionStorage.setItem(TRANSACTION_KEY, transaction);
      window.location.assign(url);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <div className="sso">
      <button type="button" className="primary" onClick={() => void start()} disabled={busy}>
        {t('sso.signInWith', { name: status.data.displayName ?? '' })}
      </button>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The provider's redirect (OIDC_REDIRECT_URI): hands code and state to the service with the transaction. */
export function SingleSignOnCallback() {
  const { signIn } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const params = new URLSearchParams(window.location.search);
    const transaction = sessionStorage.getItem(TRANSACTION_KEY);
    sessionStorage.removeItem(TRANSACTION_KEY);
    // The code must not stay in the address bar or the history.
    window.history.replaceState(null, '', window.location.pathname);
    const code = params.get('code');
    const state = params.get('state');
    if (params.get('error')) return setError(params.get('error_description') || params.get('error'));
    if (!transaction || !code || !state) return setError('This sign-in was not started in this tab, or has already been used. Start again.');
    const iss = params.get('iss');
    call(api.POST('/auth/oidc/callback', { body: { transaction, code, state, ...(iss ? { iss } : {}) } }))
      .then((answer) => {
        localStorage.setItem(SIGNED_IN_WITH_OIDC, '1');
        signIn(answer.session);
        setDone(true);
      })
      .catch((err: unknown) => setError(errorText(err)));
  }, [signIn]);

  // Back where the sign-in was asked for: an app's consent screen (web/src/oauth) sends the browser through here.
  if (done) return <Navigate to={takeReturnPath() ?? '/'} replace />;
  return (
    <main className="auth">
      <div className="auth-card">
        <h1 className="brand">Workboard</h1>
        {error ? (
          <>
            <p className="form-error" role="alert">
              {error}
            </p>
            <a href="/app/login">{t('sso.back')}</a>
          </>
        ) : (
          <p>{t('sso.signingIn')}</p>
        )}
      </div>
    </main>
  );
}
