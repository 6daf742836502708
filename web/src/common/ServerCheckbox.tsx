import { useState, type ReactNode } from 'react';

/**
 * A checkbox for a flag the server holds: it shows the new state at once while the request runs
 * and falls back to the server's value when that settles (a refusal puts it back).
 */
export function ServerCheckbox({ checked, onChange, children }: { checked: boolean; onChange: (value: boolean) => Promise<unknown>; children: ReactNode }) {
  const [pending, setPending] = useState<boolean | null>(null);
  return (
    <label className="switch">
      <input
        type="checkbox"
        checked={pending ?? checked}
        aria-busy={pending !== null}
        onChange={(e) => {
          // Not disabled while it runs: that would take the keyboard focus away; a second change waits.
          if (pending !== null) return;
          setPending(e.target.checked);
          void onChange(e.target.checked)
            .catch(() => {})
            .finally(() => setPending(null));
        }}
      />{' '}
      {children}
    </label>
  );
}
