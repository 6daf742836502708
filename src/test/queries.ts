import { Socket } from 'node:net';
import type { TestKit } from './app.js';

const RATE_LIMIT = 'insert into rate_limits';

/** How many statements the app sent to the database while `run` ran that `counts` accepts (by their SQL text and parameters). */
export async function countStatements(
  kit: TestKit,
  run: () => Promise<unknown>,
  counts: (text: string, values: unknown[]) => boolean = () => true,
): Promise<number> {
  const client = (kit.database.db as unknown as { $client: Record<string, (...args: unknown[]) => unknown> }).$client;
  let n = 0;
  // PGlite runs named statements through queryPrepared (db/pglite-prepared.ts), text first as well.
  const methods = ['query', 'queryPrepared'].filter((m) => typeof client[m] === 'function');
  const originals = methods.map((m) => client[m]!);
  methods.forEach((m, i) => {
    client[m] = function (this: unknown, ...args: unknown[]) {
      const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
      // query(config), query(text, values) or queryPrepared(text, name, values, …).
      const values = typeof first === 'string' ? ([args[1], args[2]].find(Array.isArray) ?? []) : (first?.values ?? []);
      if (counts(typeof first === 'string' ? first : (first?.text ?? ''), values as unknown[])) n++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    await run();
  } finally {
    methods.forEach((m, i) => (client[m] = originals[i]!));
  }
  return n;
}

/**
 * How many statements the app sent to the database while `run` ran, not counting the rate limiter's
 * counter on PostgreSQL (a shared row it syncs on a timer of its own, whatever the request asked).
 */
export const countQueries = (kit: TestKit, run: () => Promise<unknown>): Promise<number> => countStatements(kit, run, (text) => !text.includes(RATE_LIMIT));

/** The rate limiter's own statements while `run` ran; with `key`, only those carrying that key (not the app's own limiter's syncs). */
export const countRateLimitStatements = (kit: TestKit, run: () => Promise<unknown>, key?: string): Promise<number> =>
  countStatements(kit, run, (text, values) => text.includes(RATE_LIMIT) && (key === undefined || JSON.stringify(values).includes(key)));

/**
 * The packets the app wrote to PostgreSQL while `run` ran, on the connection that carried most (a
 * request's transaction runs on one): its round trips, since pipelined statements share a packet.
 * PostgreSQL only (PGlite has no socket).
 */
export async function countPackets(run: () => Promise<unknown>): Promise<number> {
  const port = Number(new URL(process.env.DATABASE_URL!).port || 5432);
  type Write = (this: Socket, ...args: unknown[]) => unknown;
  const proto = Socket.prototype as unknown as { _write: Write; _writev: Write };
  const originals = { _write: proto._write, _writev: proto._writev };
  const perSocket = new Map<Socket, number>();
  for (const method of ['_write', '_writev'] as const) {
    proto[method] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) perSocket.set(this, (perSocket.get(this) ?? 0) + 1);
      return originals[method].apply(this, args);
    };
  }
  try {
    await run();
  } finally {
    Object.assign(proto, originals);
  }
  return Math.max(0, ...perSocket.values());
}
