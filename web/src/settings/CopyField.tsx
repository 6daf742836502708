import { useToast } from '../common/toast';
import { t } from '../i18n';

/** A read-only value with a copy button (invite links, a new token, a webhook's secret). */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const toast = useToast();
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      toast('Copied');
    } catch {
      toast(t('copy.refused'), 'error');
    }
  }
  return (
    <span className="copy-field">
      <input readOnly value={value} aria-label={label} data-testid={testId} onFocus={(e) => e.target.select()} />
      <button type="button" onClick={() => void copy()}>
        {t('copy.copy')}
      </button>
    </span>
  );
}

/** A secret the API shows once (a new API token, a new webhook's signing secret). */
export function SecretNotice({ label, value, testId, onDone }: { label: string; value: string; testId: string; onDone: () => void }) {
  return (
    <div className="secret-notice" role="status">
      <strong>{label}</strong>
      <p>{t('copy.once')}</p>
      <CopyField label={label} value={value} testId={testId} />
      <button type="button" className="ghost" onClick={onDone}>
        {t('copy.done')}
      </button>
    </div>
  );
}
