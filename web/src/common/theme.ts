/**
 * Light or dark: the system's preference (prefers-color-scheme) unless the person chose one in
 * Settings > Profile (kept in this browser). Applied as <html data-theme> before the first render.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'workboard.theme';
const query = () => globalThis.matchMedia?.('(prefers-color-scheme: dark)');

export function themeChoice(): ThemeChoice {
  const stored = globalThis.localStorage?.getItem(KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

export function applyTheme(choice: ThemeChoice = themeChoice()): void {
  const dark = choice === 'dark' || (choice === 'system' && !!query()?.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function setTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  applyTheme(choice);
}

/** Follows the system's changes while the choice is "system". */
export function watchTheme(): void {
  applyTheme();
  query()?.addEventListener('change', () => applyTheme());
}
