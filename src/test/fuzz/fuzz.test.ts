import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { SchemaResolver, type Schema } from './schema-values.js';
import { variantsOf, type Operation, type Variant } from './variants.js';
import { randomVariantsOf } from './random-variants.js';
import { buildWorld, worldStands, type World } from './world.js';

/**
 * Schema-driven fuzzing of every operation in the OpenAPI document, as an authorized caller: any
 * 5xx or hang fails, naming the operation and the input. `npm test` runs every NUL variant and a
 * seeded sample of the others; `npm run fuzz` (FUZZ_RANDOM=n) adds n random variants per operation.
 */
const SAMPLE = Number(process.env.FUZZ_SAMPLE ?? 12);
const RANDOM = Number(process.env.FUZZ_RANDOM ?? 2);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const HANG_MS = 15_000;

// Streams that never end by design: a valid request holds the connection open.
const STREAMING = new Set(['GET /events', 'GET /events/ws']);

const kit = useTestApp({ authRateLimitPerMinute: 1_000_000, apiRateLimitPerMinute: 1_000_000 });

interface Doc {
  paths: Record<string, Record<string, { parameters?: Operation['parameters']; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}
let doc: Doc;
let resolver: SchemaResolver;
let world: World | null = null;

const operations: Operation[] = [];

function listOperations(d: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const contentTypes: Record<string, Schema> = {};
      for (const [type, c] of Object.entries(op.requestBody?.content ?? {})) contentTypes[type] = c.schema ?? {};
      ops.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], contentTypes });
    }
  }
  // Writes that end the caller's session or remove what others aim at come last.
  const rank = (o: Operation) => (o.method === 'GET' ? 0 : o.method === 'DELETE' ? 2 : 1) + (/logout|\/user$|sessions|owner|active$/.test(o.path) ? 3 : 0);
  return ops.sort((a, b) => rank(a) - rank(b));
}

/** A seeded sample that always keeps the baseline and every NUL variant. */
function sample(variants: Variant[], n: number, seed: number): Variant[] {
  const kept = variants.filter((v) => v.label === 'baseline' || v.label.includes('NUL'));
  const rest = variants.filter((v) => !kept.includes(v));
  let s = seed;
  const next = () => ((s = (Math.imul(s ^ (s >>> 15), 1 | s) + 0x6d2b79f5) >>> 0) / 2 ** 32);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return [...kept, ...rest.slice(0, n)];
}

async function send(v: Variant, method: string, headers: Record<string, string>): Promise<number | 'hang'> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_MS)));
  const res = kit.app
    .inject({ method: method as 'GET', url: v.url, headers: { ...headers, ...v.headers }, ...(v.payload === undefined ? {} : { payload: v.payload }) })
    .then((r) => r.statusCode);
  try {
    return await Promise.race([res, hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function currentWorld(): Promise<World> {
  if (!world || !(await worldStands(kit, world))) world = await buildWorld(kit, doc, resolver);
  return world!;
}

beforeAll(async () => {
  doc = (await kit.as(null).get('/openapi.json')).json() as Doc;
  resolver = new SchemaResolver(doc);
  operations.push(...listOperations(doc));
});

describe('hostile input never answers 5xx', () => {
  it('covers every operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(250);
  });

  it('answers every hostile variant of every operation below 500, without hanging', { timeout: 1_800_000 }, async () => {
    const failures: string[] = [];
    let sent = 0;
    const byStatus = new Map<string, number>();
    for (const [index, op] of operations.entries()) {
      const name = `${op.method} ${op.path}`;
      if (STREAMING.has(name)) continue;
      const w = await currentWorld();
      const fixed = sample(variantsOf(op, resolver, w.lookup, kit.config.bodyLimitBytes), SAMPLE, SEED + index);
      const random = randomVariantsOf(op, resolver, w.lookup, RANDOM, SEED + index);
      for (const v of [...fixed, ...random]) {
        const status = await send(v, op.method, w.owner.headers);
        sent++;
        const bucket = `${typeof status === 'number' ? Math.floor(status / 100) : status}xx${v.label === 'baseline' ? ' baseline' : ''}`;
        byStatus.set(bucket, (byStatus.get(bucket) ?? 0) + 1);
        if (process.env.FUZZ_TRACE && name.includes(process.env.FUZZ_TRACE)) console.log(name, v.label, status);
        if (status === 'hang' || status >= 500) failures.push(`${name} — ${v.label} → ${status} (url ${v.url.slice(0, 200)}, body ${String(v.payload ?? '').slice(0, 200)})`);
      }
    }
    if (process.env.FUZZ_VERBOSE) console.log({ sent, byStatus: Object.fromEntries(byStatus), world: Object.fromEntries(world?.ids ?? []) });
    expect(failures, `${failures.length} of ${sent} hostile requests failed`).toEqual([]);
  });
});
