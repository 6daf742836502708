import type { FastifyInstance } from 'fastify';
import { loadConfigOrExit } from './config.js';
import { buildApp } from './app.js';

// Entry point: listen, and on SIGTERM/SIGINT stop accepting, let in-flight requests finish, then
// close the database (PGlite must be closed or its data directory may need recovery).
const config = loadConfigOrExit();
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

const built = await buildApp(config);
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
}
app = built;
if (requested) await shutdown(requested);
