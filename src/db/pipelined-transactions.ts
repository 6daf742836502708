import type pg from 'pg';

/**
 * A transaction's BEGIN and COMMIT without round trips of their own, on the pool's connections
 * (pg's pipeline mode: each statement is written at once and answered in order).
 *
 * On this kind of machine a round trip costs the service a socket write and a wake-up and the
 * database a read and a wake-up, about a tenth of a millisecond each; a create was five of them and
 * a move eight. BEGIN is held back and written in one packet with the transaction's first statement;
 * a COMMIT that ends the transaction right after its last statement (queryRowsAndCommit) goes in the
 * same packet as that statement. Nothing changes in what runs on the server or in which order.
 */

interface Boundary {
  /** drizzle asked for BEGIN; it goes out with the next statement. */
  beginHeld: boolean;
  /** The transaction already ended with a COMMIT sent behind its last statement. */
  ended: boolean;
}

const boundaries = new WeakMap<object, Boundary>();

type Query = (...args: unknown[]) => unknown;

const answered = (command: string) => Promise.resolve({ rows: [], rowCount: 0, command, fields: [] });

function commandOf(first: unknown): string {
  const text = typeof first === 'string' ? first : ((first as { text?: unknown } | undefined)?.text ?? '');
  return typeof text === 'string' && text.length <= 8 ? text.trim().toLowerCase() : '';
}

/** Writes whatever `send` puts on the connection (synchronously) as one packet. */
export function corked<T>(client: pg.PoolClient, send: () => T): T {
  const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

/**
 * Wraps a pipelined pool connection's query(): a plain BEGIN is held until the next statement, a
 * COMMIT or ROLLBACK of a transaction that sent nothing or already ended is answered here.
 */
export function pipelineTransactions(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  const boundary: Boundary = { beginHeld: false, ended: false };
  boundaries.set(client, boundary);
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const command = commandOf(args[0]);
    if (command === 'begin') {
      boundary.beginHeld = true;
      boundary.ended = false;
      return answered('BEGIN');
    }
    if ((command === 'commit' || command === 'rollback') && (boundary.beginHeld || boundary.ended)) {
      boundary.beginHeld = false;
      boundary.ended = false;
      return answered(command.toUpperCase());
    }
    if (!boundary.beginHeld) return query(...args);
    boundary.beginHeld = false;
    // The statement's caller hears of a failed BEGIN (a broken connection) as its own failure.
    const [begin, statement] = corked(client, () => [query('begin') as Promise<unknown>, query(...args)]);
    if (typeof args[args.length - 1] === 'function') {
      begin.catch(() => {});
      return statement;
    }
    return Promise.all([begin, statement]).then(([, result]) => result);
  };
}

/** Forgets a returned connection's transaction state (a transaction that threw midway). */
export function resetBoundary(client: object): void {
  const boundary = boundaries.get(client);
  if (boundary) {
    boundary.beginHeld = false;
    boundary.ended = false;
  }
}

/**
 * Sends a transaction's last statement and its COMMIT in one packet and answers both. The driver's
 * own COMMIT (or ROLLBACK) that follows is answered without being sent. If the statement fails, the
 * server runs the COMMIT in the aborted transaction, which rolls it back.
 */
export async function sendWithCommit<T extends pg.QueryResultRow>(client: pg.PoolClient, config: pg.QueryConfig): Promise<T[]> {
  const boundary = boundaries.get(client);
  if (!boundary) throw new Error('sendWithCommit on a connection without pipelined transactions');
  const [statement, commit] = corked(client, () => [client.query<T>(config), client.query('commit')]);
  boundary.ended = true;
  const [rows, committed] = await Promise.allSettled([statement, commit]);
  if (rows.status === 'rejected') throw rows.reason;
  if (committed.status === 'rejected') throw committed.reason;
  return rows.value.rows;
}
