/**
 * Values built from the OpenAPI document's JSON Schemas: a plausible valid value (so a hostile
 * variant changes one thing at a time and reaches past validation), and the paths of every string
 * inside it (so each can be poisoned in turn).
 */
export type Schema = Record<string, unknown>;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class SchemaResolver {
  constructor(private readonly doc: { components?: { schemas?: Record<string, Schema> } }) {}

  resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
      const name = decodeURIComponent((s.$ref as string).replace('#/components/schemas/', ''));
      s = this.doc.components?.schemas?.[name] ?? {};
    }
    return s;
  }
}

/** Strings that satisfy common patterns and formats; the first that fits is taken. */
const STRING_CANDIDATES = ['Fuzz', '1', '#112233', '2026-01-01', 'fuzz@example.test', 'https://example.com/x', '👍', 'a'];

function stringFor(schema: Schema): string {
  const format = schema.format as string | undefined;
  if (format === 'date') return '2026-01-01';
  if (format === 'date-time') return '2030-01-01T10:00:00.000Z';
  if (format === 'email') return 'fuzz@example.test';
  if (format === 'uri' || format === 'url') return 'https://example.com/x';
  if (format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern as string, 'u') : null;
  const min = (schema.minLength as number | undefined) ?? 0;
  const fits = (s: string) => (!pattern || pattern.test(s)) && s.length >= min && s.length <= ((schema.maxLength as number | undefined) ?? Infinity);
  return STRING_CANDIDATES.find(fits) ?? 'x'.repeat(Math.max(min, 1));
}

/** Ids of the fuzzing world, by field name (taskId, stageIds…). */
export type IdLookup = (field: string) => number | undefined;

/**
 * A plausible valid value of `raw`. `minimal` keeps only the required properties and the optional ones
 * the world has an id for, so a request is not refused for naming something that does not exist.
 */
export function valueFor(resolver: SchemaResolver, raw: Schema | undefined, ids: IdLookup, field = '', depth = 0, minimal = false): Json {
  const schema = resolver.resolve(raw);
  if (depth > 8) return null;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if (schema.default !== undefined) return schema.default as Json;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const branch = branches.map((b) => resolver.resolve(b)).find((b) => b.type !== 'null') ?? branches[0];
    return valueFor(resolver, branch, ids, field, depth + 1, minimal);
  }
  if (Array.isArray(schema.allOf)) return valueFor(resolver, (schema.allOf as Schema[])[0], ids, field, depth + 1, minimal);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
    case 'number': {
      const id = ids(field);
      if (id !== undefined) return id;
      const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : 1);
      const max = (schema.maximum as number | undefined) ?? Infinity;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.max((schema.minItems as number | undefined) ?? 1, 1);
      const singular = field.replace(/s$/, '');
      const items: Json[] = [];
      for (let i = 0; i < count; i++) items.push(valueFor(resolver, schema.items as Schema, ids, singular, depth + 1, minimal));
      return schema.uniqueItems ? [...new Map(items.map((v) => [JSON.stringify(v), v])).values()] : items;
    }
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, Json> = {};
      const required = new Set((schema.required ?? []) as string[]);
      for (const [key, sub] of Object.entries(properties)) {
        if (minimal && !required.has(key) && ids(key) === undefined) continue;
        out[key] = valueFor(resolver, sub, ids, key, depth + 1, minimal);
      }
      return out;
    }
  }
}

/** JSON-pointer-like paths (arrays of keys) of every value in `value`, leaves and containers. */
export function pathsOf(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...prefix, i], ...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
  return out;
}

export function getAt(value: Json, path: Array<string | number>): Json {
  let v: Json = value;
  for (const key of path) v = (v as Record<string, Json>)[key as string] ?? null;
  return v;
}

/** A copy of `value` with the value at `path` replaced. */
export function withAt(value: Json, path: Array<string | number>, replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, Json>) }) as Record<string, Json>;
  copy[head as string] = withAt(copy[head as string] ?? null, rest, replacement);
  return copy as Json;
}
