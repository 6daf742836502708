export interface QueryTiming {
  /** Statements sent and not answered yet. */
  inFlight: number;
  /** Told each statement's duration in seconds once it is answered or failed. */
  observe?: (seconds: number) => void;
  /** Told each failed statement's error (the outage tracker tells faults from rules of the data). */
  failed?: (error: unknown) => void;
}

/**
 * Wraps a driver object's query method to time it. pg calls it with a trailing callback (pg-pool
 * does) or without one (a promise); a submittable (a cursor) answers neither way and goes untimed.
 */
export function timeQueries<T extends object>(target: T, timing: QueryTiming, method = 'query'): void {
  const owner = target as unknown as Record<string, (...args: unknown[]) => unknown>;
  const query = owner[method]!;
  owner[method] = function timed(this: unknown, ...args: unknown[]) {
    const last = args.length - 1;
    const callback = typeof args[last] === 'function' ? (args[last] as (...r: unknown[]) => unknown) : null;
    if (!callback && (args[0] as { submit?: unknown } | undefined)?.submit) return query.apply(this, args);
    const started = performance.now();
    timing.inFlight++;
    const done = (error?: unknown) => {
      timing.inFlight--;
      timing.observe?.((performance.now() - started) / 1000);
      if (error) timing.failed?.(error);
    };
    if (callback) {
      args[last] = (...r: unknown[]) => {
        done(r[0]);
        return callback(...r);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args) as Promise<unknown>;
    result.then(() => done(), done);
    return result;
  };
}

