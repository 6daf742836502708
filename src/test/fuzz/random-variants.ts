import fc from 'fast-check';
import { pathsOf, valueFor, withAt, type IdLookup, type Json, type SchemaResolver } from './schema-values.js';
import type { Operation, Variant } from './variants.js';

/** Random values of every kind JSON can carry, weighted to the ones that break code. */
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 64 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udfff', "'", '"', '\\', '<', '%', '\n', 'a', '🧨'), maxLength: 32 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, Number.MIN_VALUE),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.string({ maxLength: 10 }).map((s) => s.repeat(5000)),
);

const segment = fc.oneof(fc.string({ unit: 'binary', maxLength: 24 }), fc.integer().map(String), fc.constantFrom('0', '-1', '1e400', '..', '%00'));

/**
 * `count` random variants of one operation (seeded, so a failure can be replayed with its seed):
 * one field of the valid body, one query value or one path id replaced by a random hostile value.
 */
export function randomVariantsOf(op: Operation, resolver: SchemaResolver, ids: IdLookup, count: number, seed: number): Variant[] {
  const json = op.contentTypes['application/json'];
  const base = json ? valueFor(resolver, json, ids, '', 0, true) : undefined;
  const fieldPaths = json ? [[], ...pathsOf(valueFor(resolver, json, ids))] : [];
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const target = fc.record({
    where: fc.constantFrom(...(['body', 'query', 'path'] as const).filter((w) => (w === 'body' ? fieldPaths.length : w === 'query' ? queryNames.length : pathNames.length) > 0), 'body' as const),
    pick: fc.nat(),
    value: hostileValue,
    text: segment,
  });
  const pathWith = (override: Record<string, string>) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? String(valueFor(resolver, op.parameters.find((p) => p.name === name)?.schema, ids, name)));
  return fc.sample(target, { seed, numRuns: count }).map(({ where, pick, value, text }): Variant => {
    if (where === 'path' && pathNames.length) {
      const name = pathNames[pick % pathNames.length]!;
      return { label: `random path ${name}=${JSON.stringify(text).slice(0, 60)}`, url: pathWith({ [name]: encodeURIComponent(text) || '%20' }), headers: {} };
    }
    if (where === 'query' && queryNames.length) {
      const name = queryNames[pick % queryNames.length]!;
      const v = typeof value === 'string' ? value : JSON.stringify(value);
      return { label: `random query ${name}=${JSON.stringify(v).slice(0, 60)}`, url: `${pathWith({})}?${new URLSearchParams({ [name]: v })}`, headers: {} };
    }
    const path = fieldPaths[pick % Math.max(fieldPaths.length, 1)] ?? [];
    const body = base === undefined ? value : withAt(base, path, value);
    return {
      label: `random body /${path.join('/')}=${JSON.stringify(value)?.slice(0, 60)}`,
      url: pathWith({}),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body) ?? 'null',
    };
  });
}
