import { en, type MessageKey } from './en.js';
import { ru } from './ru.js';

/**
 * The client's two languages. A hand-written catalogue and t() rather than i18next: the strings are
 * plain, plurals go through Intl.PluralRules and dates through Intl, and the whole thing costs a
 * few hundred bytes of the first load instead of i18next and react-i18next's ~20 KB compressed.
 * The language is the profile's, else the one kept in this browser, else navigator.language; a
 * switch reloads the page, so every component renders in the new one.
 */
export type Language = 'en' | 'ru';
export type { MessageKey };
export const LANGUAGES: Language[] = ['en', 'ru'];
const catalogues: Record<Language, Record<MessageKey, string>> = { en, ru };
const STORAGE_KEY = 'workboard.language';

export function browserLanguage(): Language {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'ru') return stored;
  const wanted = globalThis.navigator?.languages ?? [globalThis.navigator?.language ?? 'en'];
  for (const tag of wanted) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'ru' || base === 'en') return base;
  }
  return 'en';
}

let current: Language = browserLanguage();
if (globalThis.document) document.documentElement.lang = current;

export const language = () => current;

/** Uses `next` from now on (kept in this browser); answers whether it changed. */
export function setLanguage(next: Language): boolean {
  globalThis.localStorage?.setItem(STORAGE_KEY, next);
  if (next === current) return false;
  current = next;
  if (globalThis.document) document.documentElement.lang = next;
  return true;
}

export type Vars = Record<string, string | number>;

/**
 * The message for `key` in the current language, `{name}` placeholders filled from `vars`. A key
 * with plural forms (`key.one`, `key.few`, `key.many`, `key.other`) is chosen by `vars.count`.
 */
export function t(key: MessageKey, vars?: Vars): string {
  return format(catalogues[current][key] ?? en[key] ?? key, vars);
}

export function tn(key: string, count: number, vars?: Vars): string {
  const form = new Intl.PluralRules(current).select(count);
  const catalogue = catalogues[current] as Record<string, string>;
  const text = catalogue[`${key}.${form}`] ?? catalogue[`${key}.other`] ?? (en as Record<string, string>)[`${key}.other`] ?? key;
  return format(text, { count, ...vars });
}

function format(text: string, vars?: Vars): string {
  return vars ? text.replace(/\{(\w+)\}/g, (all, name: string) => (name in vars ? String(vars[name]) : all)) : text;
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** A date in the current language (formatters are cached: a board formats one per card). */
export function formatDate(date: Date | string, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }): string {
  const key = `${current}|${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) formats.set(key, (format = new Intl.DateTimeFormat(current, options)));
  return format.format(new Date(date));
}
