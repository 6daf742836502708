import type { Readable } from 'node:stream';

/** A byte range of an object, both ends included (as HTTP `Range` counts them). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectInfo {
  key: string;
  size: number;
  modified: Date;
}

/**
 * Where blobs live: a local directory or an S3-compatible bucket. Keys are opaque to a backend; the
 * file store above it decides them (random UUIDs) and checks uploads. Every method that cannot reach
 * its storage throws AppError STORAGE_UNAVAILABLE, so callers answer 503 and change nothing.
 */
export interface StorageBackend {
  readonly kind: 'local' | 's3';
  /** Human-readable location for logs and the migration report (a directory, s3://bucket/prefix). */
  readonly location: string;
  /**
   * Stores a stream under `key`. The object becomes visible only once complete (a local rename, an
   * S3 single or multipart upload that completes), so no reader ever sees half a file. A stream that
   * errors leaves nothing behind.
   */
  write(key: string, body: Readable, meta?: { contentType?: string; sha256?: string }): Promise<void>;
  /** Streams an object (or a range of it); null when there is no such object. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Size and time of an object; null when there is none. `sha256` when one was recorded with it. */
  stat(key: string): Promise<(ObjectInfo & { sha256?: string }) | null>;
  /** Removes an object; removing one that is not there is not an error. */
  remove(key: string): Promise<void>;
  /** Every stored object, in pages (the sweeper and the migration walk the whole store). */
  list(): AsyncIterable<ObjectInfo>;
  /** Throws STORAGE_UNAVAILABLE (with the reason) when the storage cannot be reached. */
  check(): Promise<void>;
}
