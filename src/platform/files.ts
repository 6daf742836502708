import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { fileTypeFromFile } from 'file-type';
import sharp from 'sharp';
import { AppError } from './errors.js';

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

// libvips would keep decoded images of past requests in memory for reuse; uploads are read once.
sharp.cache(false);

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Width and height of an image as it is shown (EXIF orientation applied), from its header. */
export async function imageSize(file: string): Promise<{ width: number; height: number }> {
  const meta = await sharp(file).metadata().catch(() => null);
  const size = meta?.autoOrient;
  if (!size?.width || !size.height) throw new AppError('INVALID_FILE', 'the image cannot be read');
  return { width: size.width, height: size.height };
}

/**
 * Local-directory blob storage. Blobs are named by a random UUID only: nothing a client sends ever
 * becomes part of a path.
 */
export class FileStore {
  constructor(readonly dir: string) {}

  private pathOf(key: string): string {
    if (!UUID.test(key)) throw new AppError('NOT_FOUND', 'file not found');
    return path.join(this.dir, key.slice(0, 2), key);
  }

  /** Streams an upload to disk, enforcing the size limit while reading, then checks its content type. */
  async put(stream: Readable & { truncated?: boolean }, limits: BlobLimits): Promise<StoredBlob> {
    const key = randomUUID();
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.part`;
    let bytes = 0;
    const out = createWriteStream(temp);
    try {
      await pipeline(
        stream,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            bytes += chunk.length;
            if (bytes > limits.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${limits.maxBytes} bytes`);
            yield chunk;
          }
        },
        out,
      );
      if (stream.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'the file is larger than the upload limit');
      if (bytes === 0) throw new AppError('INVALID_FILE', 'the file is empty');
      const detected = await fileTypeFromFile(temp);
      const mimeType = detected?.mime ?? 'application/octet-stream';
      let width: number | null = null;
      let height: number | null = null;
      if (limits.imageOnly) {
        if (!IMAGE_TYPES.has(mimeType)) throw new AppError('INVALID_FILE', 'the file is not a PNG, JPEG, GIF, WebP or AVIF image');
        // Reads the header only (off the main thread); the size as shown, after EXIF orientation.
        const size = await imageSize(temp);
        width = size.width;
        height = size.height;
      }
      await rename(temp, target);
      return { key, size: bytes, mimeType, width, height };
    } catch (error) {
      // A body that fails early can fail before the file is even opened; removing it then would
      // race the open and leave an empty part behind. Wait until the stream has let go of it.
      if (!out.closed) await once(out, 'close').catch(() => {});
      await rm(temp, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<{ stream: Readable; size: number }> {
    const file = this.pathOf(key);
    const info = await stat(file).catch(() => null);
    if (!info) throw new AppError('NOT_FOUND', 'file not found');
    return { stream: createReadStream(file), size: info.size };
  }

  /** Absolute path of a stored blob (for in-process readers such as image analysis). */
  locate(key: string): string {
    return this.pathOf(key);
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
