/**
 * Database faults: which errors mean the database cannot serve (as opposed to a rule of the data),
 * and the outage they start. The error handler answers them 503 and the logs hear of an outage once,
 * however many requests and jobs meet it.
 */

export const FAULT_KINDS = [
  /** Nothing listens at the address, or the name does not resolve. */
  'unreachable',
  /** An open connection broke: reset, terminated, or the server said it is going away. */
  'connection_lost',
  /** The server is starting, shutting down or recovering from a crash. */
  'shutdown',
  /** No answer in time: a stalled network, a connect that never completes. */
  'timeout',
  /** The server refused a new session: too many connections. */
  'too_many_connections',
  /** The server cancelled a statement at statement_timeout: this request's, not an outage. */
  'statement_timeout',
  /** A write on a server that only reads (a standby not yet promoted). */
  'read_only',
  /** No disk space left (the embedded database's directory, or the server's). */
  'disk_full',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

const BY_ERRNO: Record<string, FaultKind> = {
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'connection_lost',
  EPIPE: 'connection_lost',
  ETIMEDOUT: 'timeout',
};

const BY_SQLSTATE: Record<string, FaultKind> = {
  '57P01': 'shutdown', // admin_shutdown: the server was told to stop (or a failover ended the session)
  '57P02': 'shutdown', // crash_shutdown
  '57P03': 'shutdown', // cannot_connect_now: starting up or in recovery
  '53300': 'too_many_connections',
  '57014': 'statement_timeout',
  '25006': 'read_only',
  '53100': 'disk_full',
};

/**
 * node-postgres raises these without a code of any kind; its own texts are the only signal, so they
 * are matched here and nowhere else (a driver upgrade that rewords them fails the fault tests).
 */
const DRIVER_MESSAGES: Array<[RegExp, FaultKind]> = [
  [/^Connection terminated/, 'connection_lost'],
  [/^Client has encountered a connection error/, 'connection_lost'],
  [/^Query read timeout$/, 'timeout'],
  [/^timeout exceeded when trying to connect$/, 'timeout'],
  [/^Connection terminated due to connection timeout$/, 'timeout'],
];

/** The error raised while an outage is known, instead of waiting on a database that is not there. */
export class DatabaseUnavailableError extends Error {
  readonly fault: FaultKind;
  constructor(fault: FaultKind, message = 'the database is unavailable') {
    super(message);
    this.fault = fault;
  }
}

/** The fault an error stands for (drizzle wraps the driver's error in `cause`), or null for any other error. */
export function faultOf(error: unknown): FaultKind | null {
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause as typeof e) {
    if (e instanceof DatabaseUnavailableError) return e.fault;
    if (typeof e.code === 'string') {
      const kind = BY_SQLSTATE[e.code] ?? BY_ERRNO[e.code] ?? (e.code.startsWith('08') ? 'connection_lost' : undefined);
      if (kind) return kind;
    }
    if (typeof e.message === 'string') for (const [pattern, kind] of DRIVER_MESSAGES) if (pattern.test(e.message)) return kind;
    // An AggregateError (a host name resolving to several addresses, all refused) carries its reasons in `errors`.
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0) return faultOf(inner[0]);
  }
  return null;
}

/** Faults that say the database as a whole cannot serve now, not just this statement or this write. */
export const isOutage = (kind: FaultKind | null): boolean =>
  kind === 'unreachable' || kind === 'connection_lost' || kind === 'shutdown' || kind === 'timeout';
