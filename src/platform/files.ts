import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type sharpModule from 'sharp';
import type { Config } from '../config.js';
import { AppError } from './errors.js';
import type { ByteRange, StorageBackend } from './storage/backend.js';
import { LocalBackend } from './storage/local.js';
import { queueDeletions, runDeletions } from './storage/deletions.js';
import type { Queryable } from '../db/client.js';

export interface StoredBlob {
  key: string;
  size: number;
  mimeType: string;
  width: number | null;
  height: number | null;
}

export interface BlobLimits {
  maxBytes: number;
  /** Accept only images (by content, not by name or declared type). */
  imageOnly?: boolean;
}

let loadingSharp: Promise<typeof sharpModule> | undefined;
/**
 * sharp (libvips, 12 MB resident) and file-type load at the first upload or image, not at start
 * (issue 42): an instance may serve for days without either.
 */
export const loadSharp = (): Promise<typeof sharpModule> =>
  (loadingSharp ??= import('sharp').then(({ default: sharp }) => {
    // libvips would keep decoded images of past requests in memory for reuse; uploads are read once.
    sharp.cache(false);
    return sharp;
  }));

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * What the type check reads before anything is stored: file-type needs 4,100 bytes for most
 * formats; zip-based office documents name their type a little further in.
 */
const SNIFF_BYTES = 64 * 1024;

/** Width and height of an image as it is shown (EXIF orientation applied), from its header. */
export async function imageSize(image: string | Buffer): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const meta = await sharp(image).metadata().catch(() => null);
  const size = meta?.autoOrient;
  if (!size?.width || !size.height) throw new AppError('INVALID_FILE', 'the image cannot be read');
  return { width: size.width, height: size.height };
}

/**
 * Reads the rest of a refused part and drops it: the multipart parser hands out the next part (and
 * the request ends) only once this one is consumed.
 */
function drain(source: AsyncIterator<Buffer>): void {
  void (async () => {
    for (let next = await source.next(); !next.done; next = await source.next());
  })().catch(() => {});
}

const tooLarge = (maxBytes: number) => new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${maxBytes} bytes`);

/**
 * Blob storage of the service: checks uploads and names them, whatever backend (a directory, an
 * S3 bucket) holds the bytes. Blobs are named by a random UUID only: nothing a client sends ever
 * becomes part of a path or an object key. Nothing else in the service touches the disk or the bucket.
 */
export class FileStore {
  constructor(
    readonly backend: StorageBackend,
    /** Where the deletion queue lives (the service's database, outside any request's transaction). */
    private readonly db: Queryable,
    /**
     * Read (never written) when the backend has no such blob: the local directory while an instance
     * moves to a bucket, so files uploaded since the last migration run keep answering.
     */
    private readonly fallback: StorageBackend | null = null,
  ) {}

  static async forConfig(config: Config, db: Queryable): Promise<FileStore> {
    if (config.fileStorage === 'local') return new FileStore(new LocalBackend(config.filesDir), db);
    // Loaded only when used: the AWS SDK costs start-up time and memory an instance on local files never needs.
    const { S3Backend } = await import('./storage/s3.js');
    return new FileStore(new S3Backend(config.s3), db, config.fileStorageReadFallback ? new LocalBackend(config.filesDir) : null);
  }

  /**
   * Streams an upload to storage. The size limit is enforced while reading; the type is judged from
   * the first bytes before anything is written, so a refused image costs no storage round trip.
   * Only an image upload (bounded by its own, smaller limit) is kept in memory, to measure it.
   */
  async put(stream: Readable & { truncated?: boolean }, limits: BlobLimits): Promise<StoredBlob> {
    const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head: Buffer[] = [];
    let bytes = 0;
    let ended = false;
    try {
      while (bytes < SNIFF_BYTES) {
        const next = await source.next();
        if (next.done) {
          ended = true;
          break;
        }
        head.push(next.value);
        bytes += next.value.length;
        if (bytes > limits.maxBytes) throw tooLarge(limits.maxBytes);
      }
      if (stream.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'the file is larger than the upload limit');
      if (bytes === 0) throw new AppError('INVALID_FILE', 'the file is empty');
    } catch (error) {
      drain(source);
      throw error;
    }
    const mimeType = (await (await import('file-type')).fileTypeFromBuffer(Buffer.concat(head)))?.mime ?? 'application/octet-stream';
    if (limits.imageOnly && !IMAGE_TYPES.has(mimeType)) {
      drain(source);
      throw new AppError('INVALID_FILE', 'the file is not a PNG, JPEG, GIF, WebP or AVIF image');
    }

    const image: Buffer[] | null = limits.imageOnly ? [...head] : null;
    async function* body(): AsyncGenerator<Buffer> {
      yield* head;
      if (ended) return;
      for (let next = await source.next(); !next.done; next = await source.next()) {
        bytes += next.value.length;
        if (bytes > limits.maxBytes) throw tooLarge(limits.maxBytes);
        image?.push(next.value);
        yield next.value;
      }
      // The multipart parser cuts a part at its own limit and marks it: that is a failed upload too.
      if (stream.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'the file is larger than the upload limit');
    }

    const key = randomUUID();
    try {
      await this.backend.write(key, Readable.from(body(), { objectMode: false }), { contentType: mimeType });
    } catch (error) {
      drain(source);
      throw error;
    }
    let width: number | null = null;
    let height: number | null = null;
    if (image) {
      try {
        // Reads the header only (off the main thread); the size as shown, after EXIF orientation.
        ({ width, height } = await imageSize(Buffer.concat(image)));
      } catch (error) {
        await this.backend.remove(key).catch(() => {});
        throw error;
      }
    }
    return { key, size: bytes, mimeType, width, height };
  }

  /** Streams a stored blob, or the given byte range of it. */
  async open(key: string, range?: ByteRange): Promise<Readable> {
    if (!UUID.test(key)) throw new AppError('NOT_FOUND', 'file not found');
    const stream = (await this.backend.read(key, range)) ?? (await this.fallback?.read(key, range)) ?? null;
    if (!stream) throw new AppError('NOT_FOUND', 'file not found');
    return stream;
  }

  /**
   * A whole blob in memory, for in-process readers such as image analysis (libvips reads a buffer;
   * a stream it would gather into one anyway). Refused beyond `maxBytes`.
   */
  async readAll(key: string, maxBytes: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of await this.open(key)) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /** Removes a blob no committed row refers to (an upload whose use case failed). */
  async remove(key: string): Promise<void> {
    if (UUID.test(key)) await this.backend.remove(key);
  }

  /**
   * Removes the blobs of rows the transaction deletes, once it commits: queued in the transaction
   * (so a crash or an unreachable bucket cannot forget them) and tried right after commit; what fails
   * is retried by the `files.deletes` job until storage answers.
   */
  async removeAfterCommit(ctx: { db: Queryable; afterCommit(fn: () => void | Promise<void>): void }, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await queueDeletions(ctx.db, keys);
    ctx.afterCommit(async () => void (await runDeletions(this.db, this.backend, keys)));
  }

  check(): Promise<void> {
    return this.backend.check();
  }
}

/**
 * The multipart parser reports a malformed body (no boundary, a cut-off part) with plain errors that
 * carry no code; left alone they would answer 500. Coded errors pass through: the catalogue's own,
 * Fastify's limits (FST_*, mapped to 413) and file-system failures (ENOSPC…, a real 500).
 */
export function asClientError(error: unknown): never {
  if (error instanceof AppError || typeof (error as { code?: unknown } | null)?.code === 'string') throw error;
  throw new AppError('MALFORMED_MULTIPART', 'the multipart/form-data body is malformed');
}
