import { describe, expect, it } from 'vitest';
import { en } from './en';
import { ru } from './ru';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalogues', () => {
  it('English and Russian have the same keys, none empty', () => {
    const missingInRu = Object.keys(en).filter((k) => !(k in ru));
    const missingInEn = Object.keys(ru).filter((k) => !(k in en));
    expect({ missingInRu, missingInEn }).toEqual({ missingInRu: [], missingInEn: [] });
    for (const [key, text] of [...Object.entries(en), ...Object.entries(ru)]) expect(text.trim(), key).not.toBe('');
  });

  it('a translation keeps every placeholder of the English message', () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) expect(placeholders(ru[key]), key).toEqual(placeholders(en[key]));
  });

  it('plural keys have the forms each language needs (English one/other, Russian one/few/many/other)', () => {
    const bases = new Set(Object.keys(en).filter((k) => /\.(one|other)$/.test(k)).map((k) => k.replace(/\.(one|few|many|other)$/, '')));
    for (const base of bases) {
      for (const form of ['one', 'other']) expect(Object.keys(en), base).toContain(`${base}.${form}`);
      for (const form of ['one', 'few', 'many', 'other']) expect(Object.keys(ru), base).toContain(`${base}.${form}`);
    }
  });
});
