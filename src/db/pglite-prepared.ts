import type { PGlite, Transaction } from '@electric-sql/pglite';
import { TEXT_TYPE_OIDS } from './text-types.js';

/**
 * Named prepared statements on PGlite. Its `query()` parses and plans every statement afresh (an
 * unnamed statement each time); for the hot statements that was about half of the engine's time per
 * task create (PGlite runs on the service's own thread, so that is the service's CPU). A statement
 * named here is parsed once per database and bound by name afterwards, as PostgreSQL does for the
 * same names through node-postgres.
 */

/**
 * Give this to PGlite.create: the types drizzle's driver asks as text, as text for every statement
 * (drizzle's, and the named ones here, which parse with the database's own table).
 */
export const AS_TEXT: Record<number, (value: string) => string> = Object.fromEntries([...TEXT_TYPE_OIDS].map((oid) => [oid, (value: string) => value]));

type Query = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Drops the `parsers` option drizzle's PGlite driver gives every statement (AS_TEXT, which the
 * database already has from its creation): PGlite's parseResults copies its whole table of 318 parsers
 * to merge such an option, on every statement (4-5 % of the service's CPU during moves).
 */
export function withoutDriverParsers(target: object): void {
  const owner = target as { query: Query };
  const query = owner.query;
  owner.query = function (this: unknown, ...args: unknown[]) {
    const options = args[2] as { parsers?: object } | undefined;
    if (options?.parsers && Object.keys(options.parsers).every((oid) => TEXT_TYPE_OIDS.has(Number(oid)))) {
      const { parsers: _, ...rest } = options;
      args[2] = rest;
    }
    return query.apply(this, args);
  };
}

// The databases `preparing` equipped, and the database behind each open transaction object that
// drizzle holds as its session client. Kept here instead of asking `instanceof PGlite`: client.ts
// imports this file on PostgreSQL too, where PGlite is never loaded.
const databases = new WeakSet<object>();
const owners = new WeakMap<object, PGlite>();

/** Remembers which database a transaction object belongs to (called as each transaction opens). */
export function ownTransaction(tx: Transaction, db: PGlite): void {
  owners.set(tx, db);
}

/** The database to prepare on for this session client: the PGlite itself, or an open transaction's. */
export function pgliteOf(client: unknown): { db: PGlite; inTransaction: boolean } | null {
  if (typeof client === 'object' && client !== null && databases.has(client)) return { db: client as PGlite, inTransaction: false };
  const db = typeof client === 'object' && client !== null ? owners.get(client) : undefined;
  return db ? { db, inTransaction: true } : null;
}

/** A PGlite that runs named statements (installed by `preparing`). */
interface Preparing extends PGlite {
  /** One named statement: the method statement counters and the query metrics wrap, like `query`. */
  queryPrepared<T>(text: string, name: string, params: unknown[], inTransaction: boolean): Promise<T[]>;
}

type Wire = Pick<typeof import('@electric-sql/pglite'), 'parse' | 'protocol'>;

/** Gives the database its `queryPrepared` method; `wire` is PGlite's module, which made `db`. */
export function preparing(db: PGlite, wire: Wire): void {
  // Parameter types of each statement prepared on this database (names are per session in PostgreSQL).
  const statements = new Map<string, number[]>();
  databases.add(db);
  (db as Preparing).queryPrepared = async <T>(text: string, name: string, params: unknown[], inTransaction: boolean) => {
    const run = () => db._runExclusiveQuery(() => execute<T>(wire, db, statements, name, text, params));
    // Outside a transaction, wait for any open one to end, as PGlite's own query() does.
    if (inTransaction) return run();
    const rows = await db._runExclusiveTransaction(run);
    await db.syncToFs();
    return rows;
  };
}

/** Runs `text` as the named statement `name` (parsed on first use) and answers its rows as objects. */
export function queryPrepared<T>(target: { db: PGlite; inTransaction: boolean }, name: string, text: string, params: unknown[]): Promise<T[]> {
  return (target.db as Preparing).queryPrepared<T>(text, name, params, target.inTransaction);
}

async function execute<T>({ parse, protocol }: Wire, db: PGlite, statements: Map<string, number[]>, name: string, text: string, params: unknown[]): Promise<T[]> {
  const send = async (message: Uint8Array) => (await db.execProtocol(message, { syncToFs: false })).messages;
  const messages: Awaited<ReturnType<typeof send>> = [];
  try {
    let paramTypes = statements.get(name);
    if (!paramTypes) {
      await send(protocol.serialize.parse({ name, text }));
      paramTypes = parse.parseDescribeStatementResults(await send(protocol.serialize.describe({ type: 'S', name })));
      statements.set(name, paramTypes);
    }
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = db.serializers[paramTypes![i]!];
      return serialize ? serialize(value) : String(value);
    });
    messages.push(
      ...(await send(protocol.serialize.bind({ statement: name, values }))),
      ...(await send(protocol.serialize.describe({ type: 'P' }))),
      ...(await send(protocol.serialize.execute({}))),
    );
  } finally {
    // After an error the engine skips everything up to the Sync; it must be sent either way.
    messages.push(...(await send(protocol.serialize.sync())));
  }
  const [result] = parse.parseResults(messages, db.parsers, { rowMode: 'object' });
  return (result?.rows ?? []) as T[];
}
