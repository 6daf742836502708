import { readFileSync } from 'node:fs';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A tripwire. Three patches reach past the public API of pg and PGlite, which is why package.json
// pins both to exact versions. An upgrade that changes what they rely on fails here, naming the patch
// to revisit, instead of somewhere deep in a query.

const root = new URL('../../', import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8')) as { version: string; dependencies: Record<string, string> };

const PIPELINED = 'src/db/pipelined-transactions.ts (corked, pipelineTransactions)';
const PREPARED = 'src/db/pglite-prepared.ts (preparing, execute, withoutDriverParsers)';
const FILE_SIZES = 'src/db/pglite-file-sizes.ts (cacheFileSizes)';

/** Fails with what changed and which patch depends on it. */
function expectShape(ok: boolean, what: string, patch: string): void {
  expect(ok, `${what} changed: revisit ${patch} before taking this version`).toBe(true);
}

describe.each([
  ['pg', PIPELINED],
  ['@electric-sql/pglite', `${PREPARED} and ${FILE_SIZES}`],
])('%s', (name, patch) => {
  it('is pinned to an exact version, the one installed', () => {
    const wanted = readJson('package.json').dependencies[name]!;
    const installed = readJson(`node_modules/${name}/package.json`).version;
    expect(wanted, `${name} must be pinned to an exact version (${patch} reaches into its internals)`).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed, `installed ${name} ${installed} is not the pinned ${wanted}: check ${patch}`).toBe(wanted);
  });
});

describe('pg: what the pipelined transactions rely on', () => {
  it('a client takes `pipeline` and writes through a corkable socket at client.connection.stream', () => {
    const client = new pg.Client({ pipeline: true } as pg.ClientConfig) as unknown as { pipeline?: unknown; connection?: { stream?: Record<string, unknown> } };
    expectShape(client.pipeline === true, 'pg.Client option `pipeline`', PIPELINED);
    const stream = client.connection?.stream;
    expectShape(typeof stream?.cork === 'function' && typeof stream.uncork === 'function', 'pg client.connection.stream.cork/uncork', PIPELINED);
  });

  it("a client's query is an own-assignable method taking (text | config, values?, callback?)", () => {
    const client = new pg.Client();
    const descriptor = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query');
    expectShape(typeof descriptor?.value === 'function' && descriptor.writable === true, 'pg Client.prototype.query', PIPELINED);
    expectShape(Object.isExtensible(client), 'pg Client instances (extensible)', PIPELINED);
  });
});

describe('PGlite: what the named statements and the file-size cache rely on', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  }, 60_000);
  afterAll(async () => {
    await db.close();
  });

  it('has the exclusive-run methods, the type tables and execProtocol', () => {
    const internals = db as unknown as Record<string, unknown>;
    for (const method of ['_runExclusiveQuery', '_runExclusiveTransaction', 'execProtocol', 'syncToFs']) {
      expectShape(typeof internals[method] === 'function', `PGlite#${method}`, PREPARED);
    }
    expectShape(typeof db.serializers === 'object' && typeof db.serializers[23] === 'function', 'PGlite#serializers (by type oid)', PREPARED);
    expectShape(typeof db.parsers === 'object' && typeof db.parsers[23] === 'function', 'PGlite#parsers (by type oid)', PREPARED);
  });

  it('exports the wire-protocol serializer and the result parsers, and they still run a named statement', async () => {
    for (const message of ['parse', 'describe', 'bind', 'execute', 'sync'] as const) {
      expectShape(typeof protocol.serialize[message] === 'function', `protocol.serialize.${message}`, PREPARED);
    }
    expectShape(typeof parse.parseResults === 'function' && typeof parse.parseDescribeStatementResults === 'function', 'parse.parseResults / parseDescribeStatementResults', PREPARED);

    // The sequence execute() sends, on the database's exclusive turn.
    const rows = await (db as unknown as { _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> })._runExclusiveQuery(async () => {
      const send = async (message: Uint8Array) => (await db.execProtocol(message, { syncToFs: false })).messages;
      await send(protocol.serialize.parse({ name: 'tripwire', text: 'select $1::int + 1 as n' }));
      const types = parse.parseDescribeStatementResults(await send(protocol.serialize.describe({ type: 'S', name: 'tripwire' })));
      const messages = [
        ...(await send(protocol.serialize.bind({ statement: 'tripwire', values: [db.serializers[types[0]!]!(41)] }))),
        ...(await send(protocol.serialize.describe({ type: 'P' }))),
        ...(await send(protocol.serialize.execute({}))),
        ...(await send(protocol.serialize.sync())),
      ];
      return { types, result: parse.parseResults(messages, db.parsers, { rowMode: 'object' })[0]?.rows };
    });
    expectShape(JSON.stringify(rows) === JSON.stringify({ types: [23], result: [{ n: 42 }] }), `the named-statement protocol round (${JSON.stringify(rows)})`, PREPARED);
  });

  it('exposes its Emscripten module with NODEFS and FS', () => {
    type Ops = Record<string, unknown> | undefined;
    const module = (db as unknown as { Module?: { FS?: unknown; NODEFS?: { stream_ops?: Ops; node_ops?: Ops } } }).Module;
    const stream = module?.NODEFS?.stream_ops;
    const node = module?.NODEFS?.node_ops;
    const fns = [stream?.llseek, stream?.write, stream?.setattr, node?.setattr];
    expectShape(!!module?.FS && fns.every((f) => typeof f === 'function'), 'PGlite#Module.NODEFS stream_ops/node_ops and FS', FILE_SIZES);
  });
});
