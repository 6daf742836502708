import { loadConfig } from './config.js';
import { buildApp } from './app.js';

// Entry point: listen, and on SIGTERM/SIGINT stop accepting, let in-flight requests finish, then
// close the database (PGlite must be closed or its data directory may need recovery).
const config = loadConfig();
const started = performance.now();
const app = await buildApp(config);
await app.listen({ host: config.host, port: config.port });
app.log.info(
  { db: app.database.kind, startupMs: Math.round(performance.now() - started) },
  `listening on ${config.host}:${config.port}`,
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => {
    app.log.error('shutdown took longer than 20 s, exiting');
    process.exit(1);
  }, 20_000);
  timer.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'error during shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
