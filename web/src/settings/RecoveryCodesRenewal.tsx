import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { useAction } from '../common/action';
import { t } from '../i18n';

/**
 * Ten new recovery codes, the old ones void (used up, or seen by someone else). Like turning
 * two-factor off it takes the password and a code, so an unattended session cannot mint a way in.
 */
/** `statusKey`: the two-factor status to reload (its count of codes left). */
export function RecoveryCodesRenewal({ onCodes, statusKey }: { onCodes: (codes: string[]) => void; statusKey: readonly unknown[] }) {
  const run = useAction();
  const [open, setOpen] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { password: String(form.get('password')), code: String(form.get('code')).trim() };
    const result = await run(() => call(api.POST('/user/two-factor/recovery-codes', { body })), statusKey).catch(() => null);
    if (!result) return;
    setOpen(false);
    onCodes(result.recoveryCodes);
  }
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {t('recoveryCodes.renew')}
      </button>
    );
  }
  return (
    <form className="settings-form" onSubmit={submit} aria-label={t('recoveryCodes.renew')}>
      <p className="wide muted">{t('recoveryCodes.renewNote')}</p>
      <label>
        {t('recoveryCodes.password')}
        <input name="password" type="password" required autoComplete="current-password" />
      </label>
      <label>
        {t('recoveryCodes.code')}
        <input name="code" required minLength={6} maxLength={40} autoComplete="one-time-code" />
      </label>
      <button className="primary">{t('recoveryCodes.issue')}</button>
      <button type="button" className="ghost" onClick={() => setOpen(false)}>
        {t('recoveryCodes.cancel')}
      </button>
    </form>
  );
}
