import { once } from 'node:events';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, opendir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import type { ByteRange, ObjectInfo, StorageBackend } from './backend.js';

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const missing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/** Blobs in a directory, two levels deep (`ab/abcdef…`) so no directory grows past a few thousand entries. */
export class LocalBackend implements StorageBackend {
  readonly kind = 'local' as const;

  constructor(readonly dir: string) {}

  get location(): string {
    return this.dir;
  }

  private pathOf(key: string): string {
    // Keys are UUIDs the store made; anything else never becomes part of a path.
    if (!KEY.test(key)) throw new AppError('NOT_FOUND', 'file not found');
    return path.join(this.dir, key.slice(0, 2), key);
  }

  async write(key: string, body: Readable, meta: { sha256?: string } = {}): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.part`;
    const out = createWriteStream(temp);
    try {
      await pipeline(body, out);
      // A checksum the migration verified travels with the copy, so a resumed run can trust it.
      if (meta.sha256) await writeFile(`${target}.sha256`, meta.sha256);
      await rename(temp, target);
    } catch (error) {
      // A body that fails early can fail before the file is even opened; removing it then would
      // race the open and leave an empty part behind. Wait until the stream has let go of it.
      if (!out.closed) await once(out, 'close').catch(() => {});
      await rm(temp, { force: true });
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const file = this.pathOf(key);
    // Opened before answering, so a missing file is a 404 and not a stream that fails mid-reply.
    const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
    try {
      await once(stream, 'open');
      return stream;
    } catch (error) {
      stream.destroy();
      if (missing(error)) return null;
      throw error;
    }
  }

  async stat(key: string): Promise<(ObjectInfo & { sha256?: string }) | null> {
    const file = this.pathOf(key);
    const info = await stat(file).catch((error: unknown) => (missing(error) ? null : Promise.reject(error)));
    if (!info) return null;
    const sha256 = await readFile(`${file}.sha256`, 'utf8').catch(() => undefined);
    return { key, size: info.size, modified: info.mtime, ...(sha256 ? { sha256 } : {}) };
  }

  async remove(key: string): Promise<void> {
    const file = this.pathOf(key);
    await rm(file, { force: true });
    await rm(`${file}.sha256`, { force: true });
  }

  async *list(): AsyncIterable<ObjectInfo> {
    const top = await opendir(this.dir).catch((error: unknown) => (missing(error) ? null : Promise.reject(error)));
    if (!top) return;
    for await (const shard of top) {
      if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
      for await (const entry of await opendir(path.join(this.dir, shard.name))) {
        // `.part` files are uploads in progress (or left by a crash), `.sha256` travel with a blob.
        if (!entry.isFile() || !KEY.test(entry.name)) continue;
        const info = await stat(path.join(this.dir, shard.name, entry.name)).catch(() => null);
        if (info) yield { key: entry.name, size: info.size, modified: info.mtime };
      }
    }
  }

  async check(): Promise<void> {
    // The directory is made by the first upload; until then the nearest existing parent must be writable.
    let dir = path.resolve(this.dir);
    while (!(await access(dir).then(() => true, () => false)) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    await access(dir, constants.W_OK).catch((error: unknown) => {
      throw new AppError('STORAGE_UNAVAILABLE', `the files directory cannot be written: ${(error as { code?: string }).code ?? 'error'}`);
    });
  }
}
