import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { SchemaResolver, type Schema } from '../../test/fuzz/schema-values.js';
import { variantsOf, type Operation } from '../../test/fuzz/variants.js';
import { randomVariantsOf } from '../../test/fuzz/random-variants.js';
import { buildWorld } from '../../test/fuzz/world.js';
import { connect, useFakeDrive } from './cloud-drive.fixtures.js';

/**
 * The shared fuzz test (src/test/fuzz) meets these routes unconfigured, where they answer 409 before
 * looking at much. Here the same hostile variants reach them with a drive connected to the fake
 * provider, so uploads, downloads and provider errors are exercised too: nothing may answer 5xx.
 */
const { fake, overrides } = useFakeDrive({ authRateLimitPerMinute: 1_000_000, apiRateLimitPerMinute: 1_000_000 });
const t = useTestApp(overrides);
const SEED = 20261125;

interface Doc {
  paths: Record<string, Record<string, { parameters?: Operation['parameters']; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}

describe('cloud drive: hostile input with a connected drive', () => {
  it('answers every variant of every cloud-drive operation below 500', { timeout: 300_000 }, async () => {
    const doc = (await t.as(null).get('/openapi.json')).json() as Doc;
    const resolver = new SchemaResolver(doc as never);
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/integrations/cloud-drive'))
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          contentTypes: Object.fromEntries(Object.entries(op.requestBody?.content ?? {}).map(([type, c]) => [type, c.schema ?? {}])),
        })),
      );
    expect(operations).toHaveLength(9);
    const world = await buildWorld(t, doc, resolver);
    await connect(t, fake, world.owner);
    fake.addFile(world.owner.email, { name: 'seed.txt', content: 'seed' });
    const failures: string[] = [];
    // Disconnecting last, so the other operations meet a connected drive.
    for (const [index, op] of operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE')).entries()) {
      const variants = [...variantsOf(op, resolver, world.lookup, t.config.bodyLimitBytes), ...randomVariantsOf(op, resolver, world.lookup, 10, SEED + index)];
      for (const v of variants) {
        const res = await t.app.inject({ method: op.method as 'GET', url: v.url, headers: { ...world.owner.headers, ...v.headers }, ...(v.payload === undefined ? {} : { payload: v.payload }) });
        if (res.statusCode >= 500) failures.push(`${op.method} ${op.path} — ${v.label} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
