import { useState, type FormEvent } from 'react';
import { FormButtons } from './FormButtons';

/** A button that turns into a one-field form (new space, new column, new card…). */
export function InlineForm({ label, placeholder, onSubmit, className }: { label: string; placeholder: string; onSubmit: (value: string) => Promise<unknown>; className?: string }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
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
    if (!value) return;
    setBusy(true);
    try {
      await onSubmit(value);
      input.value = '';
      setOpen(false);
    } catch {
      // The caller showed why; the text stays for another try.
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className={`inline-form ${className ?? ''}`} onSubmit={submit}>
      <input name="value" aria-label={label} placeholder={placeholder} autoFocus maxLength={500} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)} />
      <FormButtons busy={busy} submit="Add" onCancel={() => setOpen(false)} className="inline-form-buttons" />
    </form>
  );
}
