import type { Setting } from './setting.js';
import { SERVER_SETTINGS } from './settings.server.js';
import { STORAGE_SETTINGS } from './settings.storage.js';
import { BACKGROUND_SETTINGS } from './settings.background.js';
import { SSO_SETTINGS } from './settings.sso.js';
import { EMAIL_SETTINGS } from './settings.email.js';

/** Every environment variable the service reads, by area: the one list loadConfig, the docs and the checks come from. */
export const SETTINGS = { ...SERVER_SETTINGS, ...STORAGE_SETTINGS, ...BACKGROUND_SETTINGS, ...SSO_SETTINGS, ...EMAIL_SETTINGS };

export const AREAS: { title: string; settings: Record<string, Setting<unknown>> }[] = [
  { title: 'Server, HTTP and accounts', settings: SERVER_SETTINGS },
  { title: 'Database and files', settings: STORAGE_SETTINGS },
  { title: 'Real-time, jobs and integrations', settings: BACKGROUND_SETTINGS },
  { title: 'Single sign-on (OpenID Connect)', settings: SSO_SETTINGS },
  { title: 'Email', settings: EMAIL_SETTINGS },
];

export const SETTING_NAMES: readonly string[] = Object.keys(SETTINGS);

/** Restricted (optimal string alignment) edit distance: a swap of two neighbours is one edit. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

// A family is the words that two or more of our names start with (DATABASE_, S3_, CLOUD_DRIVE_, …):
// a single name's first word (NODE_ of NODE_ENV) would claim the world's NODE_OPTIONS, and CLOUD_
// alone a cloud SDK's variables.
function families(names: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const name of names) groups.set(name.split('_')[0]!, [...(groups.get(name.split('_')[0]!) ?? []), name]);
  return [...groups.values()]
    .filter((group) => group.length >= 2)
    .map((group) => {
      const words = group.map((n) => n.split('_'));
      const common: string[] = [];
      for (let i = 0; words.every((w) => w[i] !== undefined && w[i] === words[0]![i]); i++) common.push(words[0]![i]!);
      return `${common.join('_')}_`;
    });
}
const FAMILIES = families(SETTING_NAMES);

/**
 * Variables that look like ours but are not: one in a family of ours, or within two edits of one
 * of our names (one edit for short names, so HOME is not taken for HOST). Each names the nearest.
 */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (SETTING_NAMES.includes(name)) continue;
    let nearest = '';
    let best = Infinity;
    for (const known of SETTING_NAMES) {
      const d = distance(name, known);
      if (d < best) [nearest, best] = [known, d];
    }
    const close = best <= (nearest.length >= 8 ? 2 : 1);
    if (close || FAMILIES.some((f) => name.startsWith(f))) warnings.push(`unknown variable ${name} is ignored; did you mean ${nearest}?`);
  }
  return warnings;
}
