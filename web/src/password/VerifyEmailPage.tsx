import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, call } from '../api/client';
import { errorText } from '../common/toast';
import { AuthCard } from '../shell/AuthCard';
import { useSession } from '../shell/session';
import { t } from '../i18n';

/**
 * The emailed verification link's page (`/app/verify-email?token=…`, after a sign-up or an address
 * change): the token is sent once as the page opens, and the outcome said in words (a used,
 * expired or replaced link: VERIFICATION_TOKEN_INVALID in the error catalogue).
 */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { signedIn } = useSession();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  // Once per page, even when React runs the effect twice in development.
  const sent = useRef(false);

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    call(api.POST('/auth/verify-email', { body: { token } }))
      .then(() => setOutcome({ ok: true, text: t('verifyEmail.done') }))
      .catch((err: unknown) => setOutcome({ ok: false, text: errorText(err) }));
  }, [token]);

  return (
    <AuthCard>
      <h2>{t('verifyEmail.title')}</h2>
      {!token ? (
        <p role="alert">{t('passwordReset.noToken')}</p>
      ) : !outcome ? (
        <p>{t('verifyEmail.checking')}</p>
      ) : outcome.ok ? (
        <p role="status">{outcome.text}</p>
      ) : (
        <p className="form-error" role="alert">
          {outcome.text}
        </p>
      )}
      <p>
        <Link to={signedIn ? '/' : '/login'}>{signedIn ? t('verifyEmail.open') : t('passwordReset.signIn')}</Link>
      </p>
    </AuthCard>
  );
}
