import { DatabaseUnavailableError, FAULT_KINDS, faultOf, isOutage, type FaultKind } from './faults.js';

interface OutageLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const silent: OutageLog = { error: () => {}, info: () => {} };

/**
 * Whether the database is in an outage, and the way out of it. The first fault that means the
 * database cannot serve (a connection lost or refused, a stalled network) starts an outage: it is
 * logged once, and until a probe reaches the database again every statement fails at once with
 * DatabaseUnavailableError instead of queueing behind connections that will not answer. A probe
 * runs every `probeMs`; the one that succeeds ends the outage and tells `onRecovered` listeners
 * (the event listener catches up what it missed).
 */
export class Outage {
  down = false;
  /** When the current (or last) outage started, epoch ms. */
  since = 0;
  /** The fault that started the current outage. */
  cause: FaultKind | null = null;
  /** Faults seen, by kind, since start (metrics). */
  readonly counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  /** Where the outage's start and end are told; the app sets its logger. */
  log: OutageLog = silent;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly recovered = new Set<() => void>();
  private readonly lastLogged = new Map<FaultKind, number>();

  constructor(
    private readonly probe: () => Promise<void>,
    private readonly probeMs = 500,
  ) {}

  /** Records a failed statement or connection; answers the fault it stands for (null: not a fault). */
  report(error: unknown): FaultKind | null {
    const kind = faultOf(error);
    // A refusal raised during the outage is its consequence, not a new fault.
    if (!kind || error instanceof DatabaseUnavailableError) return kind;
    this.counts[kind]++;
    if (isOutage(kind) && !this.down && !this.closed) {
      this.down = true;
      this.since = Date.now();
      this.cause = kind;
      this.log.error({ fault: kind, reason: (error as Error).message }, `database unavailable (${kind}): answering 503 until it is back`);
      this.schedule();
    }
    return kind;
  }

  /** Throws while the database is known to be unavailable. */
  check(): void {
    if (this.down) throw new DatabaseUnavailableError(this.cause ?? 'unreachable');
  }

  /**
   * True for a fault not worth a log line now: one inside an outage (the outage was logged), or a
   * kind already logged within the last minute.
   */
  firstInAWhile(kind: FaultKind): boolean {
    if (this.down && isOutage(kind)) return false;
    const now = Date.now();
    if (now - (this.lastLogged.get(kind) ?? 0) < 60_000) return false;
    this.lastLogged.set(kind, now);
    return true;
  }

  onRecovered(fn: () => void): () => void {
    this.recovered.add(fn);
    return () => this.recovered.delete(fn);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.attempt(), this.probeMs);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    this.timer = null;
    try {
      await this.probe();
    } catch {
      return this.schedule();
    }
    if (this.closed) return;
    this.down = false;
    this.log.info({ fault: this.cause, seconds: Math.round((Date.now() - this.since) / 100) / 10 }, 'database available again');
    for (const fn of this.recovered) {
      try {
        fn();
      } catch {
        // A listener's failure must not keep the others from hearing.
      }
    }
  }
}
