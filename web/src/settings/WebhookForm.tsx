import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { spaceProjectsQuery } from '../api/queries';
import { choiceOf, EVENT_GROUPS, eventsOf, type EventChoice } from './model';
import { FormButtons } from '../common/FormButtons';
import { t, type MessageKey } from '../i18n';

// Format samples, the same in every language.
const URL_SAMPLE = 'https://example.com/hooks/workboard';
const EVENTS_SAMPLE = 'automation.failed, import.*';

/** The catalogue key of each event family's checkbox label (model's EVENT_GROUPS holds the English). */
const FAMILY_LABELS: Record<string, MessageKey> = {
  task: 'webhooks.family.task',
  message: 'webhooks.family.message',
  'time-record': 'webhooks.family.timeRecord',
  timer: 'webhooks.family.timer',
  stage: 'webhooks.family.stage',
  project: 'webhooks.family.project',
  space: 'webhooks.family.space',
  page: 'webhooks.family.page',
  reglament: 'webhooks.family.reglament',
  label: 'webhooks.family.label',
  organization: 'webhooks.family.organization',
  webhook: 'webhooks.family.webhook',
};

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
      {t('webhooks.form.project')}
      <select name="project" defaultValue="">
        <option value="">{t('webhooks.form.allProjects')}</option>
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
        <input name="url" type="url" required maxLength={2000} defaultValue={initial?.url ?? ''} placeholder={URL_SAMPLE} />
      </label>
      {scopes && (
        <label>
          {t('webhooks.form.eventsOf')}
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
        <legend>{t('webhooks.form.events')}</legend>
        <label>
          <input type="checkbox" checked={choice.all} onChange={(e) => setChoice({ ...choice, all: e.target.checked })} /> {t('webhooks.form.everyEvent')}
        </label>
        {EVENT_GROUPS.map(([family, label]) => (
          <label key={family}>
            <input type="checkbox" disabled={choice.all} checked={choice.all || choice.families.includes(family)} onChange={(e) => toggle(family, e.target.checked)} /> {FAMILY_LABELS[family] ? t(FAMILY_LABELS[family]) : label}
          </label>
        ))}
        <label className="wide">
          {t('webhooks.form.otherTypes')}
          <input disabled={choice.all} value={choice.other} onChange={(e) => setChoice({ ...choice, other: e.target.value })} placeholder={EVENTS_SAMPLE} />
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
