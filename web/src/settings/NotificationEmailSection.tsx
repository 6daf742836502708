import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useAction, noop } from '../common/action';
import { t } from '../i18n';
import type { components } from '../api/schema';

type Setting = components['schemas']['NotificationEmail'];
type Mode = Setting['mode'];

const MODES: Mode[] = ['off', 'immediate', 'hourly', 'daily'];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const key = ['notification-email'] as const;

/** The browser's own time zone, the default of a setting never saved. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The time zones the browser knows (the server checks against the IANA list), the current one first if missing. */
function zones(current: string): string[] {
  const known = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return known.includes(current) ? known : [current, ...known];
}

/**
 * Settings > Profile > Email notifications: off, each one at once, an hourly digest, or a daily
 * digest at a local hour in a time zone (the browser's until one is saved; the server's default is
 * a daily digest at 08:00 UTC), and with a digest, whether mentions go at once.
 */
export function NotificationEmailSection() {
  const { data } = useQuery({ queryKey: key, queryFn: () => call(api.GET('/user/notification-email')) });
  const client = useQueryClient();
  const run = useAction();
  const [draft, setDraft] = useState<Setting | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    // A setting never saved reads as the server's default (daily at 08:00 UTC): offer the browser's zone instead.
    if (data) setDraft(data.mode === 'daily' && data.hour === 8 && data.timeZone === 'UTC' ? { ...data, timeZone: browserZone() } : data);
  }, [data]);

  if (!draft) return null;
  const change = (next: Partial<Setting>) => {
    setSaved(false);
    setDraft({ ...draft, ...next });
  };

  async function save() {
    const answer = await run(() => call(api.PUT('/user/notification-email', { body: draft! })));
    client.setQueryData(key, answer);
    setSaved(true);
  }

  return (
    <fieldset className="notification-email">
      <legend>{t('notificationEmail.title')}</legend>
      <label className="field">
        <span className="field-label">{t('notificationEmail.mode')}</span>
        <select value={draft.mode} onChange={(e) => change({ mode: e.target.value as Mode })}>
          {MODES.map((mode) => (
            <option key={mode} value={mode}>
              {t(`notificationEmail.mode.${mode}`)}
            </option>
          ))}
        </select>
      </label>
      {draft.mode === 'daily' && (
        <label className="field">
          <span className="field-label">{t('notificationEmail.hour')}</span>
          <select value={draft.hour} onChange={(e) => change({ hour: Number(e.target.value) })}>
            {HOURS.map((hour) => (
              <option key={hour} value={hour}>
                {`${String(hour).padStart(2, '0')}:00`}
              </option>
            ))}
          </select>
        </label>
      )}
      {draft.mode === 'daily' && (
        <label className="field">
          <span className="field-label">{t('notificationEmail.timeZone')}</span>
          <select value={draft.timeZone} onChange={(e) => change({ timeZone: e.target.value })}>
            {zones(draft.timeZone).map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </label>
      )}
      {(draft.mode === 'hourly' || draft.mode === 'daily') && (
        <label className="checkbox">
          <input type="checkbox" checked={draft.mentionsImmediately} onChange={(e) => change({ mentionsImmediately: e.target.checked })} />{' '}
          {t('notificationEmail.mentionsImmediately')}
        </label>
      )}
      <div className="form-buttons">
        <button type="button" className="primary" onClick={() => void save().catch(noop)}>
          {t('notificationEmail.save')}
        </button>
        {saved && <span role="status">{t('notificationEmail.saved')}</span>}
      </div>
    </fieldset>
  );
}
