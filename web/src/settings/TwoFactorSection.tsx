import { useEffect, useState, type FormEvent } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { api, call, type Schemas } from '../api/client';
import { useAction } from '../common/action';
import { when } from '../common/time';
import { CopyField } from './CopyField';
import { RecoveryCodesRenewal } from './RecoveryCodesRenewal';
import { sessionsKey } from './SessionsSection';
import { t, tn } from '../i18n';
import { errorText } from '../common/toast';

const twoFactorKey = ['two-factor'] as const;
export const twoFactorQuery = queryOptions({ queryKey: twoFactorKey, queryFn: () => call(api.GET('/user/two-factor')) });

/** The otpauth:// URI drawn as a QR code, for the authenticator app's camera. */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(uri, { margin: 1, width: 200 }).then((url) => live && setSrc(url), () => live && setSrc(null));
    return () => {
      live = false;
    };
  }, [uri]);
  return src ? <img src={src} width={200} height={200} alt={t('tf.qrAlt')} data-testid="two-factor-qr" /> : null;
}

/** Scan, then confirm with the first code; the recovery codes are shown once. */
function Enrolment({ enrolment, onDone }: { enrolment: Schemas['TwoFactorEnrolment']; onDone: (codes: string[]) => void }) {
  const run = useAction();
  async function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code')).trim();
    const result = await run(() => call(api.POST('/user/two-factor/enrolment/confirm', { body: { code } })), twoFactorKey, sessionsKey).catch(() => null);
    if (result) onDone(result.recoveryCodes);
  }
  return (
    <div className="secret-notice">
      <strong>{t('tf.scan')}</strong>
      <QrCode uri={enrolment.uri} />
      <p>{t('tf.byHand')}</p>
      <CopyField label={t('tf.secret')} value={enrolment.secret} />
      <form className="settings-form" onSubmit={confirm} aria-label={t('tf.confirm')}>
        <label>
          {t('tf.firstCode')}
          <input name="code" required pattern="[0-9]{6}" inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
        </label>
        <button className="primary">{t('tf.turnOn')}</button>
      </form>
    </div>
  );
}

function TurnOff() {
  const run = useAction();
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { password: String(form.get('password')), code: String(form.get('code')).trim() };
    await run(() => call(api.DELETE('/user/two-factor', { body })), twoFactorKey).catch(() => null);
  }
  return (
    <form className="settings-form" onSubmit={submit} aria-label={t('tf.turnOffForm')}>
      <label>
        {t('tf.password')}
        <input name="password" type="password" required autoComplete="current-password" />
      </label>
      <label>
        {t('tf.codeOrRecovery')}
        <input name="code" required minLength={6} maxLength={40} autoComplete="one-time-code" />
      </label>
      <button className="danger">{t('tf.turnOff')}</button>
    </form>
  );
}

/** Own two-factor sign-in (TOTP): enrol with a QR code, see what is left, turn it off. */
export function TwoFactorSection() {
  const { data: status, error } = useQuery(twoFactorQuery);
  const run = useAction();
  const [enrolment, setEnrolment] = useState<Schemas['TwoFactorEnrolment'] | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  async function start() {
    setEnrolment(await run(() => call(api.POST('/user/two-factor/enrolment'))).catch(() => null));
  }
  return (
    <section aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">{t('tf.title')}</h2>
      {error && <p className="form-error" role="alert">{errorText(error)}</p>}
      {status?.enrolmentRequired && <p className="form-error">{t('tf.required')}</p>}
      {codes && (
        <div className="secret-notice" role="status" data-testid="recovery-codes">
          <strong>{t('tf.recoveryCodes')}</strong>
          <p>{t('tf.recoveryIntro')}</p>
          <pre>{codes.join('\n')}</pre>
          <button type="button" className="ghost" onClick={() => setCodes(null)}>
            {t('tf.done')}
          </button>
        </div>
      )}
      {status && status.enabled && (
        <>
          <p>
            {tn('tf.onSince', status.recoveryCodesLeft, { date: when(status.enabledAt) })}
          </p>
          <RecoveryCodesRenewal onCodes={setCodes} statusKey={twoFactorKey} />
          <TurnOff />
        </>
      )}
      {status && !status.enabled && !enrolment && (
        <>
          <p className="muted">{t('tf.explain')}</p>
          <button type="button" className="primary" onClick={() => void start()}>
            {t('tf.setUp')}
          </button>
        </>
      )}
      {status && !status.enabled && enrolment && (
        <Enrolment
          enrolment={enrolment}
          onDone={(recovery) => {
            setEnrolment(null);
            setCodes(recovery);
          }}
        />
      )}
    </section>
  );
}
