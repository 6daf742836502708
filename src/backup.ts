import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfigOrExit } from './config.js';

/**
 * `npm run backup -- <file>` writes the whole instance (every organization and user, every table,
 * every stored file) to one .tar.gz; `npm run restore -- <file>` loads such a file into an instance
 * without users or organizations. Both use the configured database (DATA_DIR for the embedded one,
 * which must not be open in a running server; DATABASE_URL for PostgreSQL) and file storage.
 */
const [mode, file] = process.argv.slice(2);
if ((mode !== 'backup' && mode !== 'restore') || !file) {
  console.error('usage: npm run backup -- <file.tar.gz>   |   npm run restore -- <file.tar.gz>');
  process.exit(2);
}
const target = path.resolve(file);
if (mode === 'backup' && (await stat(target).catch(() => null))) {
  console.error(`${target} exists; choose a new file name`);
  process.exit(2);
}

// Loaded only now: a wrong command line answers at once, without loading the whole service.
const { buildApp } = await import('./app.js');
const { backupInstance, restoreInstance } = await import('./modules/portability/instance.js');
const config = loadConfigOrExit(process.env, { jobsEnabled: false, logLevel: process.env.LOG_LEVEL || 'warn' });
const app = await buildApp(config).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
const started = performance.now();
try {
  if (mode === 'backup') {
    let total = 0;
    await backupInstance(app, target, { total: async (n) => void (total = n), advance: async () => {} });
    console.log(`backed up ${total} rows and files to ${target} (${(await stat(target)).size} bytes) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    const manifest = await restoreInstance(app, target);
    const rows = Object.values(manifest.tables).reduce((sum, t) => sum + t.rows, 0);
    console.log(`restored ${rows} rows and ${manifest.files} files from ${target} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await app.close();
}
