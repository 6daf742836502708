import { isIP } from 'node:net';

/**
 * One environment variable: what the operator's table says about it and how its text becomes a
 * value. `parse` gets the raw text (undefined when unset) and the whole environment, for the few
 * settings whose default or whose need depends on another one.
 */
export interface Setting<T> {
  /** The default as the docs show it (`—`: unset). */
  default: string;
  description: string;
  /** Never printed: `config:check` masks it and an error does not repeat it. */
  secret: boolean;
  parse(raw: string | undefined, env: NodeJS.ProcessEnv): T;
}

/** Thrown by a parser with what it expected; the reader adds the name and what it got. */
export class Invalid extends Error {}

/** Every invalid variable, one line each: `NAME must be <expected>, got "<value>"`. */
export class ConfigError extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'ConfigError';
  }
}

type Options = { secret?: boolean; default?: string; max?: number };

const blank = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

function setting<T>(description: string, fallback: string, parse: Setting<T>['parse'], options: Options = {}): Setting<T> {
  return { description, default: options.default ?? fallback, secret: options.secret ?? false, parse };
}

export function int(description: string, fallback: number, min: number, options: Options = {}): Setting<number> {
  return setting(description, String(fallback), (raw) => (blank(raw) ? fallback : bounded(raw, min, options.max)), options);
}

/** An integer from min (to max), or Invalid saying so. */
export function bounded(raw: string, min: number, max?: number): number {
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < min || value > (max ?? Number.MAX_SAFE_INTEGER)) throw new Invalid(max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`);
  return value;
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

export function bool(description: string, fallback: boolean): Setting<boolean> {
  return setting(description, String(fallback), (raw) => {
    if (blank(raw)) return fallback;
    const value = raw.trim().toLowerCase();
    if (TRUE.includes(value)) return true;
    if (FALSE.includes(value)) return false;
    throw new Invalid('true or false');
  });
}

export function oneOf<const V extends string>(description: string, values: readonly V[], fallback: V): Setting<V> {
  return setting(description, fallback, (raw) => {
    if (blank(raw)) return fallback;
    const value = raw.trim().toLowerCase() as V;
    if (!values.includes(value)) throw new Invalid(`${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);
    return value;
  });
}

/** Free text; unset gives `fallback` (null: the feature it belongs to is off). */
export function text<F extends string | null>(description: string, fallback: F, options: Options = {}): Setting<string | F> {
  return setting(description, fallback ?? '—', (raw) => (blank(raw) ? fallback : raw.trim()), options);
}

/** An absolute http(s) URL: a typo stops the start instead of failing the first call. */
export function httpUrl<F extends string | null>(description: string, fallback: F, options: Options = {}): Setting<string | F> {
  return setting(description, fallback ?? '—', (raw) => {
    if (blank(raw)) return fallback;
    if (!isHttpUrl(raw.trim())) throw new Invalid('an absolute http(s) URL');
    return raw.trim();
  }, options);
}

export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** A connection string of `protocols`; it may hold a password, so it is a secret. */
export function connectionUrl(description: string, protocols: string[]): Setting<string | null> {
  return setting(description, '—', (raw) => {
    if (blank(raw)) return null;
    let protocol = '';
    try {
      protocol = new URL(raw.trim()).protocol;
    } catch {
      // reported below
    }
    if (!protocols.includes(protocol)) throw new Invalid(`a URL starting ${protocols.map((p) => `${p}//`).join(' or ')}`);
    return raw.trim();
  }, { secret: true });
}

/** A comma-separated list, each item normalized by `item` (empty items dropped). */
export function list(description: string, item: (s: string) => string = (s) => s, check?: (s: string) => string | null): Setting<string[]> {
  return setting(description, '—', (raw) => {
    const items = (raw ?? '').split(',').map((s) => item(s.trim())).filter(Boolean);
    for (const i of items) {
      const expected = check?.(i);
      if (expected) throw new Invalid(expected);
    }
    return items;
  });
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A comma-separated list of durations: `1m,5m,1h` (units ms, s, m, h; none = milliseconds). */
export function durations(description: string, fallback: string): Setting<number[]> {
  const parse = (raw: string) =>
    raw.split(',').map((part) => {
      const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/.exec(part);
      if (!m) throw new Invalid('durations like 1m,5m,1h');
      return Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!;
    });
  return setting(description, fallback, (raw) => parse(blank(raw) ? fallback : raw));
}

/** Any parser of one's own, for the settings none of the above fits. */
export function custom<T>(description: string, fallback: string, parse: (raw: string | undefined, env: NodeJS.ProcessEnv) => T, options: Options = {}): Setting<T> {
  return setting(description, fallback, (raw, env) => parse(blank(raw) ? undefined : raw.trim(), env), options);
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: `true` (every hop), a number of hops, or addresses/CIDRs of the proxies; unset = none. */
export function trustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const valid = (entry: string) => {
    const [address, bits, ...rest] = entry.split('/');
    if (rest.length > 0 || !isIP(address!)) return PROXY_NAMES.includes(entry) && bits === undefined;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (isIP(address!) === 4 ? 32 : 128));
  };
  if (!entries.every(valid)) throw new Invalid(`true, false, a number of hops, or IP addresses/CIDRs (or ${PROXY_NAMES.join(', ')}), comma-separated`);
  return entries;
}

/**
 * The variables' values, each read by its setting. Every invalid one is reported, not only the
 * first, so one start shows the operator all there is to fix; a secret's value is never repeated.
 */
export function readSettings<S extends Record<string, Setting<unknown>>>(settings: S, env: NodeJS.ProcessEnv): { [K in keyof S]: ReturnType<S[K]['parse']> } {
  const values: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [name, s] of Object.entries(settings)) {
    const raw = env[name];
    try {
      values[name] = s.parse(raw, env);
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      const got = raw === undefined || raw.trim() === '' ? 'nothing' : s.secret ? `a ${raw.length}-character value (not shown)` : JSON.stringify(raw);
      errors.push(`${name} must be ${err.message}, got ${got}`);
    }
  }
  if (errors.length > 0) throw new ConfigError(errors);
  return values as { [K in keyof S]: ReturnType<S[K]['parse']> };
}
