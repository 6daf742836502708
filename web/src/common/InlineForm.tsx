import { useId, useRef, useState, type FormEvent } from 'react';
import { t } from '../i18n';
import { FormButtons } from './FormButtons';

/**
 * A button that turns into a one-field form (new space, new column, new card…). Enter adds, Escape
 * cancels; an empty name says so beside the field; a refused add keeps the text for another try.
 * `onSubmit` gets an idempotency key that stays the same while the text does: an add that failed
 * without an answer (its toast's Retry may already have made it) and is sent again makes nothing twice.
 */
export function InlineForm({
  label,
  placeholder,
  onSubmit,
  className,
}: {
  label: string;
  placeholder: string;
  onSubmit: (value: string, idempotencyKey: string) => Promise<unknown>;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [empty, setEmpty] = useState(false);
  const errorId = useId();
  const attempt = useRef<{ value: string; key: string } | null>(null);
  const close = () => {
    setOpen(false);
    setEmpty(false);
  };
  if (!open)
    return (
      <button type="button" className={`add ${className ?? ''}`} onClick={() => setOpen(true)}>
        + {label}
      </button>
    );
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('value') as HTMLInputElement;
    const value = input.value.trim();
    if (!value) {
      setEmpty(true);
      input.focus();
      return;
    }
    if (attempt.current?.value !== value) attempt.current = { value, key: crypto.randomUUID() };
    setBusy(true);
    try {
      await onSubmit(value, attempt.current.key);
      attempt.current = null;
      input.value = '';
      close();
    } catch {
      // The caller showed why; the text stays for another try.
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className={`inline-form ${className ?? ''}`} onSubmit={submit} noValidate>
      <input
        name="value"
        aria-label={label}
        placeholder={placeholder}
        autoFocus
        maxLength={500}
        aria-invalid={empty || undefined}
        aria-describedby={empty ? errorId : undefined}
        onChange={(e) => empty && e.target.value.trim() && setEmpty(false)}
        onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), close())}
      />
      {empty && (
        <span className="field-error" id={errorId} role="alert">
          {t('form.nameRequired')}
        </span>
      )}
      <FormButtons busy={busy} submit={t('action.add')} onCancel={close} className="inline-form-buttons" />
    </form>
  );
}
