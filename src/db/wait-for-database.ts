import { createServer, type Server } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { VERSION } from '../version.js';
import { reach } from './pool.js';

/** `host:port` of a connection URL, never its user or password. */
export function whereIs(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return 'the configured address';
  }
}

/**
 * While the database cannot be reached at start, the port answers anyway: `/health` 200 (the
 * process is alive, do not restart it) and everything else 503, so an orchestrator keeps it out of
 * rotation instead of killing it, and a client hears why.
 */
function standIn(config: Config): Server {
  return createServer((request, response) => {
    if (request.url === '/health') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ status: 'starting', db: 'postgres', version: VERSION }));
      return;
    }
    const body = {
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'DATABASE_UNAVAILABLE',
      detail: 'the service is waiting for its database; retry shortly',
      requestId: 'starting',
    };
    response.writeHead(503, { 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': '5' });
    response.end(JSON.stringify(request.url === '/ready' ? { status: 'unavailable', db: 'postgres', storage: config.fileStorage, version: VERSION, reason: body.detail } : body));
  });
}

export interface WaitOptions {
  log: FastifyBaseLogger;
  /** Asked between attempts: a SIGTERM during the wait ends it. */
  stopped: () => boolean;
}

/**
 * Waits until the database answers, with a growing delay between attempts (0.5 s doubling to
 * 10 s), serving the stand-in meanwhile. Answers false when stopped, throws one sentence when
 * DATABASE_START_TIMEOUT_S runs out (0: never).
 */
export async function waitForDatabase(config: Config, options: WaitOptions): Promise<boolean> {
  const url = config.databaseDirectUrl ?? config.databaseUrl!;
  const where = whereIs(url);
  const timeoutMs = Math.min(config.databaseConnectTimeoutMs, 5000);
  const started = Date.now();
  let server: Server | null = null;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await reach(url, timeoutMs);
        if (attempt > 1) options.log.info({ attempts: attempt }, `the database at ${where} answers`);
        return true;
      } catch (err) {
        if (options.stopped()) return false;
        const waited = (Date.now() - started) / 1000;
        if (config.databaseStartTimeoutSec > 0 && waited >= config.databaseStartTimeoutSec) {
          throw new Error(`gave up waiting for the database at ${where} after ${Math.round(waited)} s (DATABASE_START_TIMEOUT_S): ${(err as Error).message}`);
        }
        options.log.warn({ reason: (err as Error).message }, `waiting for the database at ${where} (attempt ${attempt})`);
        if (!server) {
          server = standIn(config);
          const listening = server;
          await new Promise<void>((resolve, reject) => {
            listening.once('error', reject);
            listening.listen(config.port, config.host, () => {
              listening.off('error', reject);
              resolve();
            });
          });
        }
        const delay = Math.min(10_000, 500 * 2 ** Math.min(attempt - 1, 5));
        for (const until = Date.now() + delay; Date.now() < until && !options.stopped(); ) await new Promise((r) => setTimeout(r, 100));
        if (options.stopped()) return false;
      }
    }
  } finally {
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    }
  }
}
