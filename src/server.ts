import Fastify, { type FastifyInstance } from 'fastify';
import { faultOf } from './db/faults.js';
import { waitForDatabase } from './db/wait-for-database.js';
import { loadConfigOrExit } from './config.js';
import { buildApp } from './app.js';
import { applyMemorySettings, releaseStartupMemory } from './platform/memory.js';
import { mapCompiledStackTraces } from './platform/stack-traces.js';

// Entry point: listen, and on SIGTERM/SIGINT stop accepting, let in-flight requests finish, then
// close the database (PGlite must be closed or its data directory may need recovery).
// Stack traces name src/*.ts lines, each map read when a stack is (docs/performance.md, issue 42).
mapCompiledStackTraces(import.meta.dirname);
const config = loadConfigOrExit();
applyMemorySettings(config);
const started = performance.now();

let app: FastifyInstance | null = null;
let requested: string | null = null;
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  // During start-up (migrations, PGlite opening) the signal waits until the app is up: dying in
  // the middle is what leaves a data directory needing recovery.
  if (!app) {
    requested ??= signal;
    return;
  }
  if (stopping) return;
  stopping = true;
  const running = app;
  running.log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => {
    running.log.error('shutdown took longer than 20 s, exiting');
    process.exit(1);
  }, 20_000);
  timer.unref();
  try {
    await running.close();
    process.exit(0);
  } catch (err) {
    running.log.error({ err }, 'error during shutdown');
    process.exit(1);
  }
}
// Installed before anything is opened, so no signal meets the default handler (instant death).
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

// A database fault that escaped every handler (a promise nobody awaited) is the outage's business,
// not a reason to die; anything else unexplained ends the process with one line, as it should.
process.on('unhandledRejection', (reason) => {
  if (faultOf(reason)) return;
  process.stderr.write(`workboard: stopping on an unhandled error: ${(reason as Error)?.stack ?? String(reason)}\n`);
  process.exit(1);
});

/** A failure the service cannot serve through: one line on stderr, exit 1 (no stack for a known cause). */
function cannotStart(err: unknown): never {
  process.stderr.write(`workboard: cannot start: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
}

// What start-up is doing before the app (and its logger) exists: waiting for the database, migrating.
const log = Fastify({ logger: { level: config.logLevel } }).log;
if (config.databaseUrl) {
  const reached = await waitForDatabase(config, { log, stopped: () => requested !== null }).catch(cannotStart);
  if (!reached) process.exit(0);
}
const built = await buildApp(config, { progress: (line) => log.info(line) }).catch(cannotStart);
// Signalled while starting: stop without ever listening.
if (!requested) {
  try {
    await built.listen({ host: config.host, port: config.port });
  } catch (err) {
    built.log.fatal({ err }, `cannot listen on ${config.host}:${config.port}`);
    await built.close();
    process.exit(1);
  }
  built.log.info({ db: built.database.kind, startupMs: Math.round(performance.now() - started) }, `listening on ${config.host}:${config.port}`);
  releaseStartupMemory();
}
app = built;
if (requested) await shutdown(requested);
