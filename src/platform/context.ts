import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/client.js';
import { withTransaction } from '../db/tx.js';
import { actorOf, type Actor } from './auth.js';

/** What every use case receives: who acts, where to query, and what to do once the write commits. */
export interface Ctx {
  actor: Actor;
  db: Queryable;
  afterCommit(fn: () => void | Promise<void>): void;
  onRollback(fn: () => void | Promise<void>): void;
}

/** Runs a writing use case in one transaction as the request's actor. */
export function write<T>(app: FastifyInstance, request: FastifyRequest, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  const actor = actorOf(request);
  return withTransaction(
    app.database.db,
    ({ tx, afterCommit, onRollback }) => fn({ actor, db: tx, afterCommit, onRollback }),
    (err) => request.log.error({ err }, 'after-commit handler failed'),
  );
}

/**
 * Runs a reading use case without an explicit transaction: one statement is already consistent,
 * and skipping BEGIN/COMMIT saves two round trips on the hottest paths.
 */
export function read<T>(app: FastifyInstance, request: FastifyRequest, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  const actor = actorOf(request);
  return fn({
    actor,
    db: app.database.db,
    afterCommit: (f) => void Promise.resolve().then(f),
    onRollback: () => {},
  });
}
