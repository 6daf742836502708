import path from 'node:path';
import { loadConfigOrExit, type Config } from './config.js';
import { LocalBackend } from './platform/storage/local.js';
import { S3Backend } from './platform/storage/s3.js';
import { migrateObjects, type MigrationProgress } from './platform/storage/migrate.js';

/**
 * `npm run files:migrate -- --to s3` (or `--to local`): copies every stored file from the other
 * backend, verifying each copy by size and SHA-256. Needs no database and leaves the source as it
 * is, so it runs beside a live service; run it again to resume or to pick up files uploaded since.
 */
const USAGE = 'usage: npm run files:migrate -- --to s3|local';

function parseTarget(argv: string[]): 's3' | 'local' {
  const i = argv.indexOf('--to');
  const to = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--to='))?.slice(5);
  if (to !== 's3' && to !== 'local') throw new Error(USAGE);
  return to;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function line(p: MigrationProgress): string {
  const seconds = Math.max(p.elapsedMs / 1000, 0.001);
  const handled = p.copied + p.present + p.failed;
  return `${handled}/${p.total} files: ${p.copied} copied, ${p.present} already there, ${p.failed} failed; ${mb(p.bytes)} at ${(p.copied / seconds).toFixed(0)} files/s, ${mb(p.bytes / seconds)}/s`;
}

async function main(argv: string[], config: Config = loadConfigOrExit()): Promise<number> {
  const to = parseTarget(argv);
  if (!config.s3.bucket) throw new Error('set S3_BUCKET (and the other S3_* settings) to the bucket to copy to or from');
  const local = new LocalBackend(config.filesDir);
  const s3 = new S3Backend(config.s3);
  const [source, target] = to === 's3' ? [local, s3] : [s3, local];
  await source.check();
  await target.check();
  console.log(`copying files from ${source.location} to ${target.location}`);
  const controller = new AbortController();
  // Ctrl-C stops after the file in hand; the journal lets the next run carry on from there.
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  const result = await migrateObjects(source, target, {
    journal: path.join(config.filesDir, `.migrated-to-${to}.journal`),
    signal: controller.signal,
    onProgress: (p) => console.log(line(p)),
    onFailure: (key, error) => console.error(`failed: ${key}: ${(error as Error).message}`),
  });
  const finished = result.copied + result.present === result.total;
  console.log(finished ? `done: ${line(result)}` : `stopped: ${line(result)}; run the command again to finish`);
  return finished && result.failed === 0 ? 0 : 1;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error((error as Error).message);
    process.exit(2);
  });
