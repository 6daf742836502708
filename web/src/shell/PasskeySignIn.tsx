import { useState } from 'react';
import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { ApiError, api, call } from '../api/client';
import { errorText } from '../common/toast';
import { t } from '../i18n';

type Options = Parameters<typeof startAuthentication>[0]['optionsJSON'];

function usePasskeyStep(onSession: (session: string) => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function go(step: () => Promise<{ session: string }>) {
    setBusy(true);
    setError(null);
    try {
      onSession((await step()).session);
    } catch (err) {
      setError(passkeyErrorText(err));
    } finally {
      setBusy(false);
    }
  }
  return { error, busy, go };
}

/** The sign-in's refusals, said of a passkey rather than of an email and password. */
function passkeyErrorText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') return t('passkeys.refused');
  // The browser's own refusal: the prompt was dismissed or timed out.
  if (err instanceof Error && err.name === 'NotAllowedError') return t('passkeys.cancelled');
  return errorText(err);
}

function Failure({ error }: { error: string | null }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}

/**
 * "Sign in with a passkey": no email typed, the device offers the passkeys it holds for this site
 * (discoverable credentials). Nothing when the browser cannot use passkeys.
 */
export function PasskeySignInButton({ onSession }: { onSession: (session: string) => void }) {
  const { error, busy, go } = usePasskeyStep(onSession);
  if (!browserSupportsWebAuthn()) return null;
  return (
    <div className="sso">
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void go(async () => {
            const { challengeId, options } = await call(api.POST('/auth/passkey/options'));
            const response = await startAuthentication({ optionsJSON: options as Options });
            return call(api.POST('/auth/passkey', { body: { challengeId, response: response as never } }));
          })
        }
      >
        {t('passkeys.signIn')}
      </button>
      <Failure error={error} />
    </div>
  );
}

/** The second step of a password sign-in answered with one of the account's passkeys instead of a code. */
export function PasskeySecondStep({ challenge, onSession, onRestart }: { challenge: string; onSession: (session: string) => void; onRestart?: () => void }) {
  const { error, busy, go } = usePasskeyStep(onSession);
  return (
    <div className="sso">
      <button
        type="button"
        className={onRestart ? 'primary' : undefined}
        disabled={busy}
        onClick={() =>
          void go(async () => {
            const { challengeId, options } = await call(api.POST('/auth/login/two-factor/passkey/options', { body: { challenge } }));
            const response = await startAuthentication({ optionsJSON: options as Options });
            return call(api.POST('/auth/login/two-factor/passkey', { body: { challenge, challengeId, response: response as never } }));
          })
        }
      >
        {onRestart ? t('passkeys.confirm') : t('passkeys.instead')}
      </button>
      <Failure error={error} />
      {onRestart && (
        <button type="button" onClick={onRestart}>
          {t('passkeys.startOver')}
        </button>
      )}
    </div>
  );
}
