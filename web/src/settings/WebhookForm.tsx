import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { spaceProjectsQuery } from '../api/queries';
import { choiceOf, EVENT_GROUPS, eventsOf, type EventChoice } from './model';
import { FormButtons } from '../common/FormButtons';

export interface WebhookInput {
  url: string;
  events: string[];
  spaceId: number | null;
  /** Only this project's events (a project of `spaceId`); null for the whole scope. */
  projectId: number | null;
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

/** Narrows a space's webhook to one of its projects (the API keeps it with the project's space). */
function ProjectSelect({ spaceId }: { spaceId: number }) {
  const { data: projects = [] } = useQuery(spaceProjectsQuery(spaceId));
  return (
    <label>
      Project
      <select name="project" defaultValue="">
        <option value="">All projects of the space</option>
        {projects
          .filter((p) => p.spaceId === spaceId)
          .map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
      </select>
    </label>
  );
}

/** Creates or edits a webhook: its URL, the events it takes (families or exact types), its scope. */
export function WebhookForm({ title, initial, scopes, onSubmit, onCancel }: Props) {
  const [choice, setChoice] = useState<EventChoice>(() => choiceOf(initial?.events ?? ['task.*']));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [scope, setScope] = useState<number | null>(() => scopes?.[0]?.spaceId ?? null);
  const toggle = (family: string, on: boolean) => setChoice({ ...choice, families: on ? [...choice.families, family] : choice.families.filter((f) => f !== family) });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const events = eventsOf(choice);
    if ('error' in events) return setError(events.error);
    const project = String(data.get('project') ?? '');
    setError(null);
    setBusy(true);
    try {
      await onSubmit({ url: String(data.get('url')).trim(), events: events.events, spaceId: scopes ? scope : (initial?.spaceId ?? null), projectId: scopes && project ? Number(project) : null });
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
          <select name="scope" value={scope ?? ''} onChange={(e) => setScope(e.target.value ? Number(e.target.value) : null)}>
            {scopes.map((s) => (
              <option key={s.spaceId ?? 'org'} value={s.spaceId ?? ''}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {scopes && scope !== null && <ProjectSelect key={scope} spaceId={scope} />}
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
      <FormButtons busy={busy} onCancel={onCancel} className="row wide" />
    </form>
  );
}
