import { useEffect } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
import { FormError, useSubmit } from '../common/submit';
import { errorText } from '../common/toast';
import { AuthCard } from '../shell/AuthCard';
import { AuthPage } from '../shell/AuthPage';
import { useSession } from '../shell/session';
import { scopeLabel } from './scopes';
import { keepReturnPath, takeReturnPath } from './returnPath';
import { t } from '../i18n';
import './consent.css';

const loadRequest = (uid: string) => call(api.GET('/oauth/interaction/{uid}/details', { params: { path: { uid } } }));

/** The app, what it asks for, and Allow / Deny; the answer sends the browser back to the authorization server. */
function Consent({ uid }: { uid: string }) {
  const { data: request, error } = useQuery({ queryKey: ['oauth-request', uid], queryFn: () => loadRequest(uid), retry: false });
  const { busy, error: refused, run } = useSubmit();
  // Signed in now: the way back kept for single sign-on is spent.
  useEffect(() => void takeReturnPath(), []);

  const decide = (allow: boolean) =>
    run(async () => {
      const { redirectTo } = await call(api.POST('/oauth/interaction/{uid}/decision', { params: { path: { uid } }, body: { allow } }));
      // Leaving the web client: the authorization server finishes the request and sends the browser on to the app.
      window.location.assign(redirectTo);
    });

  if (error) {
    const gone = error instanceof ApiError && error.status === 404;
    return (
      <AuthCard>
        <h2>{t('oauth.title')}</h2>
        <p className="form-error" role="alert">
          {gone ? t('oauth.gone') : errorText(error)}
        </p>
      </AuthCard>
    );
  }
  if (!request) {
    return (
      <AuthCard>
        <p className="loading">{t('oauth.loading')}</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard>
      <div className="oauth-consent" data-testid="oauth-consent">
        <h2>{t('oauth.asks', { app: request.client.name })}</h2>
        <p>{t('oauth.intro', { organization: request.organization.name })}</p>
        <ul className="oauth-scopes" aria-label={t('oauth.scopes')}>
          {request.scopes.map((scope) => (
            <li key={scope}>{scopeLabel(scope)}</li>
          ))}
        </ul>
        {request.client.redirectHosts.length > 0 && <p className="muted">{t('oauth.redirect', { hosts: request.client.redirectHosts.join(', ') })}</p>}
        <p className="muted">{t('oauth.revokeLater')}</p>
        <FormError error={refused} />
        <div className="oauth-actions">
          <button type="button" disabled={busy} onClick={() => void decide(false)}>
            {t('oauth.deny')}
          </button>
          <button type="button" className="primary" disabled={busy} onClick={() => void decide(true)}>
            {t('oauth.allow')}
          </button>
        </div>
      </div>
    </AuthCard>
  );
}

/**
 * Where the authorization server sends the browser to sign in and consent (/app/oauth/<uid>). Signed
 * out: the normal sign-in, and then, on the same page, the consent.
 */
export function ConsentPage() {
  const uid = useParams().uid ?? '';
  const { signedIn } = useSession();
  if (!signedIn) {
    // Password, passkey and two-factor sign-in happen on this page; single sign-on leaves it and comes back through its callback.
    keepReturnPath(`/oauth/${uid}`);
    return <AuthPage intro={<p className="oauth-sign-in">{t('oauth.signInFirst')}</p>} />;
  }
  return <Consent uid={uid} />;
}
