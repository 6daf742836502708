import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys, meQuery } from '../api/queries';
import { useAction, noop } from '../common/action';
import { setTheme, themeChoice, type ThemeChoice } from '../common/theme';
import { language, setLanguage, t, type Language } from '../i18n';
import { NotificationEmailSection } from './NotificationEmailSection';
import { EmailAddressSection } from './EmailAddressSection';
import { ConnectedAppsSection } from './ConnectedAppsSection';

const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', ru: 'Русский' };

/** Settings > Profile: the interface language (saved with the user, so emails use it too) and the theme (this browser). */
export function ProfilePanel() {
  const { data: me } = useQuery(meQuery);
  const client = useQueryClient();
  const run = useAction();
  const [theme, setThemeState] = useState<ThemeChoice>(themeChoice);

  async function changeLanguage(next: Language) {
    await run(() => call(api.PATCH('/user/language', { body: { language: next } })));
    client.setQueryData(keys.me, (old: object | undefined) => (old ? { ...old, language: next } : old));
    // Every component renders its strings again in the new language.
    if (setLanguage(next)) location.reload();
  }

  return (
    <section className="panel profile-panel" aria-labelledby="profile-title">
      <h2 id="profile-title">{t('profile.title')}</h2>
      <label className="field">
        <span className="field-label">{t('profile.language')}</span>
        <select value={me?.language ?? language()} onChange={(e) => void changeLanguage(e.target.value as Language).catch(noop)}>
          {(Object.keys(LANGUAGE_NAMES) as Language[]).map((code) => (
            <option key={code} value={code} lang={code}>
              {LANGUAGE_NAMES[code]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">{t('profile.theme')}</span>
        <select
          value={theme}
          onChange={(e) => {
            const next = e.target.value as ThemeChoice;
            setTheme(next);
            setThemeState(next);
          }}
        >
          <option value="system">{t('profile.theme.system')}</option>
          <option value="light">{t('profile.theme.light')}</option>
          <option value="dark">{t('profile.theme.dark')}</option>
        </select>
      </label>
      <EmailAddressSection />
      <NotificationEmailSection />
      <ConnectedAppsSection />
    </section>
  );
}
