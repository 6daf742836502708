import type { Db, Tx } from './client.js';

type AfterCommit = () => void | Promise<void>;

/** What a use case receives: the open transaction and a queue of work to run once it commits. */
export interface TxContext {
  tx: Tx;
  afterCommit(fn: AfterCommit): void;
  /** Undo work done outside the database (a written blob) if the transaction does not commit. */
  onRollback(fn: AfterCommit): void;
}

// Deadlock and serialization failures are safe to retry: the transaction rolled back entirely.
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 4;

function pgError(error: unknown): { code: string; constraint?: string } | undefined {
  let e = error as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 4; i++) {
    if (typeof e.code === 'string') return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
    e = e.cause as typeof e;
  }
  return undefined;
}

const pgCode = (error: unknown): string | undefined => pgError(error)?.code;

// Two placements that read the same neighbours may draw the same rank (tasks/board/ranks.ts); the
// column's unique ranks are checked at the end of the placing statement (migration 0018), and the
// rerun reads the winner's rank.
const RETRYABLE_CLASHES = new Set(['task_stages_stage_order_key']);

function retryable(error: unknown): boolean {
  const e = pgError(error);
  if (!e) return false;
  return RETRYABLE.has(e.code) || (e.code === '23505' && e.constraint !== undefined && RETRYABLE_CLASHES.has(e.constraint));
}

/**
 * Runs fn in one transaction. Side effects queued with afterCommit run only once the commit
 * succeeded, so nothing is announced that did not happen; their failures are logged by the caller's
 * onError and never fail the request.
 */
export async function withTransaction<T>(
  db: Db,
  fn: (ctx: TxContext) => Promise<T>,
  onAfterCommitError: (error: unknown) => void = () => {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const queue: AfterCommit[] = [];
    const undo: AfterCommit[] = [];
    try {
      const result = await db
        .transaction(async (tx) => fn({ tx, afterCommit: (f) => queue.push(f), onRollback: (f) => undo.push(f) }))
        .catch(async (error: unknown) => {
          for (const f of undo) await Promise.resolve().then(f).catch(onAfterCommitError);
          throw error;
        });
      for (const f of queue) {
        try {
          await f();
        } catch (error) {
          onAfterCommitError(error);
        }
      }
      return result;
    } catch (error) {
      if (retryable(error) && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
  }
}

export { pgCode };

/** A deadlock or serialization failure: the transaction rolled back entirely and may run again. */
export const isRetryable = (error: unknown): boolean => RETRYABLE.has(pgCode(error) ?? '');
