import { loadConfigOrExit } from './config.js';

/**
 * `npm run files:sweep -- [--dry-run] [--older-than-hours N]`: lists stored objects that no file
 * refers to (older than a day by default) and removes them, or with --dry-run only reports them.
 * The service's daily `files.sweep` job does the same; this is for looking before it does.
 */
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const hoursAt = args.indexOf('--older-than-hours');
const hours = hoursAt >= 0 ? Number(args[hoursAt + 1]) : 24;
if (!Number.isFinite(hours) || hours < 0) {
  console.error('usage: npm run files:sweep -- [--dry-run] [--older-than-hours N]');
  process.exit(2);
}

// Loaded only now: a wrong command line answers at once, without loading the whole service.
const { buildApp } = await import('./app.js');
const { sweepOrphans } = await import('./platform/storage/deletions.js');
const config = loadConfigOrExit(process.env, { jobsEnabled: false, logLevel: process.env.LOG_LEVEL || 'warn' });
const app = await buildApp(config).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
try {
  const report = await sweepOrphans(app.database.db, app.files.backend, { dryRun, olderThanMs: hours * 3600_000 });
  for (const o of report.orphans) console.log(`${dryRun ? 'would remove' : 'removed'} ${o.key} (${o.size} bytes, ${o.modified.toISOString()})`);
  console.log(
    `${app.files.backend.location}: ${report.scanned} objects, ${report.orphans.length} with no file (${report.orphanBytes} bytes)` +
      (dryRun ? ', nothing removed (dry run)' : `, ${report.removed} removed`),
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await app.close();
}
