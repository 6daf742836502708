import { useState, type FormEvent } from 'react';
import { choiceOf, EVENT_GROUPS, eventsOf, type EventChoice } from './model';

export interface WebhookInput {
  url: string;
  events: string[];
  spaceId: number | null;
}

interface Props {
  /** The form's title, also its accessible name. */
  title: string;
  initial?: { url: string; events: string[]; spaceId: number | null };
  /** Where a new webhook may listen: the whole organization (value null) and/or spaces. Absent when editing. */
  scopes?: Array<{ spaceId: number | null; label: string }>;
  onSubmit: (input: WebhookInput) => Promise<unknown>;
  onCancel: () => void;
}

/** Creates or edits a webhook: its URL, the events it takes (families or exact types), its scope. */
export function WebhookForm({ title, initial, scopes, onSubmit, onCancel }: Props) {
  const [choice, setChoice] = useState<EventChoice>(() => choiceOf(initial?.events ?? ['task.*']));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (family: string, on: boolean) => setChoice({ ...choice, families: on ? [...choice.families, family] : choice.families.filter((f) => f !== family) });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const events = eventsOf(choice);
    if ('error' in events) return setError(events.error);
    const scope = String(data.get('scope') ?? '');
    setError(null);
    setBusy(true);
    try {
      await onSubmit({ url: String(data.get('url')).trim(), events: events.events, spaceId: scope ? Number(scope) : (initial?.spaceId ?? null) });
    } catch {
      // Shown by the caller; the form keeps what was typed.
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="settings-form webhook-form" onSubmit={submit} aria-label={title}>
      <label className="wide">
        URL
        <input name="url" type="url" required maxLength={2000} defaultValue={initial?.url ?? ''} placeholder="https://example.com/hooks/workboard" />
      </label>
      {scopes && (
        <label>
          Events of
          <select name="scope" defaultValue={scopes[0] ? String(scopes[0].spaceId ?? '') : ''}>
            {scopes.map((s) => (
              <option key={s.spaceId ?? 'org'} value={s.spaceId ?? ''}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <fieldset className="wide events">
        <legend>Events</legend>
        <label>
          <input type="checkbox" checked={choice.all} onChange={(e) => setChoice({ ...choice, all: e.target.checked })} /> Every event
        </label>
        {EVENT_GROUPS.map(([family, label]) => (
          <label key={family}>
            <input type="checkbox" disabled={choice.all} checked={choice.all || choice.families.includes(family)} onChange={(e) => toggle(family, e.target.checked)} /> {label}
          </label>
        ))}
        <label className="wide">
          Other event types
          <input disabled={choice.all} value={choice.other} onChange={(e) => setChoice({ ...choice, other: e.target.value })} placeholder="automation.failed, import.*" />
        </label>
      </fieldset>
      {error && (
        <p className="form-error wide" role="alert">
          {error}
        </p>
      )}
      <div className="row wide">
        <button className="primary" disabled={busy}>
          Save
        </button>
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
