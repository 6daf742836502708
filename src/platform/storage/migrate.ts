import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import type { ObjectInfo, StorageBackend } from './backend.js';

export interface MigrationProgress {
  total: number;
  /** Copied and verified in this run. */
  copied: number;
  /** Found already copied (by an earlier run) and left alone. */
  present: number;
  failed: number;
  bytes: number;
  elapsedMs: number;
}

export interface MigrationOptions {
  /** A file of verified copies, one `key sha256 size` line each: what a later run skips. */
  journal: string;
  onProgress?: (progress: MigrationProgress) => void;
  onFailure?: (key: string, error: unknown) => void;
  /** Checked between files: a run stopped this way resumes like any other. */
  signal?: AbortSignal;
  /** Copies in flight at once (default 8). */
  concurrency?: number;
}

async function sha256Of(stream: AsyncIterable<Buffer>): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

async function readJournal(file: string): Promise<Map<string, { sha256: string; size: number }>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const done = new Map<string, { sha256: string; size: number }>();
  for (const line of text.split('\n')) {
    const [key, sha256, size] = line.trim().split(' ');
    if (key && sha256 && size) done.set(key, { sha256, size: Number(size) });
  }
  return done;
}

/**
 * Copies one object and proves the copy: the source is hashed while it streams to the target, then
 * the target is read back and must have the same size and SHA-256. Nothing is ever removed from the source.
 */
async function copyOne(source: StorageBackend, target: StorageBackend, object: ObjectInfo): Promise<{ sha256: string; size: number }> {
  const from = await source.read(object.key);
  if (!from) throw new Error('the source object disappeared');
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  from.on('error', (error) => tap.destroy(error));
  await target.write(object.key, from.pipe(tap));
  const sent = { sha256: hash.digest('hex'), size };
  const back = await target.read(object.key);
  if (!back) throw new Error('the copy is not there after writing it');
  const copy = await sha256Of(back);
  if (copy.size !== sent.size || copy.sha256 !== sent.sha256) throw new Error(`the copy differs (${copy.size} bytes, sha256 ${copy.sha256}; source ${sent.size}, ${sent.sha256})`);
  return sent;
}

/**
 * Copies every object of `source` to `target`, verified one by one, and records each verified copy
 * in the journal as it goes, so a run that is stopped (or killed) anywhere resumes where it was.
 * A copy in the journal whose target has gone or changed size is copied again.
 */
export async function migrateObjects(source: StorageBackend, target: StorageBackend, options: MigrationOptions): Promise<MigrationProgress> {
  const started = Date.now();
  const done = await readJournal(options.journal);
  let total = 0;
  for await (const _ of source.list()) total++;
  const progress: MigrationProgress = { total, copied: 0, present: 0, failed: 0, bytes: 0, elapsedMs: 0 };
  const report = () => options.onProgress?.({ ...progress, elapsedMs: Date.now() - started });
  const handle = async (object: ObjectInfo) => {
    const known = done.get(object.key);
    if (known && known.size === object.size && (await target.stat(object.key))?.size === object.size) {
      progress.present++;
    } else {
      try {
        const copied = await copyOne(source, target, object);
        // One short append per copy (O_APPEND): a run killed at any point leaves whole lines behind.
        await appendFile(options.journal, `${object.key} ${copied.sha256} ${copied.size}\n`);
        progress.copied++;
        progress.bytes += copied.size;
      } catch (error) {
        progress.failed++;
        options.onFailure?.(object.key, error);
      }
    }
    if ((progress.copied + progress.present + progress.failed) % 100 === 0) report();
  };
  // A few copies at once: a bucket answers each request in milliseconds, and small files are all latency.
  const objects = source.list()[Symbol.asyncIterator]();
  const worker = async () => {
    for (let next = await objects.next(); !next.done && !options.signal?.aborted; next = await objects.next()) await handle(next.value);
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  report();
  return { ...progress, elapsedMs: Date.now() - started };
}
