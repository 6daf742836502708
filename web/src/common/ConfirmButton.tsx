import { useState } from 'react';
import { noop } from './action';
import { t } from '../i18n';

/**
 * A destructive action asked twice, in place (no browser dialog): the first click shows the
 * question with its own confirm and cancel buttons. `name` says what it acts on, for screen readers.
 */
export function ConfirmButton({ label, name, question, onConfirm }: { label: string; name: string; question: string; onConfirm: () => Promise<unknown> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" aria-label={`${label} ${name}`} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  async function confirm() {
    setBusy(true);
    await onConfirm().catch(noop);
    setBusy(false);
    setAsking(false);
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="button" className="danger" disabled={busy} autoFocus onClick={() => void confirm()}>
        {t('confirm.yes', { action: label.toLowerCase() })}
      </button>
      <button type="button" className="ghost" onClick={() => setAsking(false)}>
        {t('action.cancel')}
      </button>
    </span>
  );
}
