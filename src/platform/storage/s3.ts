import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../../config.js';
import { AppError } from '../errors.js';
import type { ByteRange, ObjectInfo, StorageBackend } from './backend.js';

/**
 * Multipart part size: what one upload holds in memory. 5 MiB is S3's minimum; one part in flight
 * while the next fills keeps an upload of any size to about 10 MB of buffers (two in flight made the
 * bench's peak RSS noticeably higher for little speed), and 10,000 parts still allow files of 50 GB.
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 1;

const status = (error: unknown) => (error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined);
const isMissing = (error: unknown) => status(error) === 404 || (error as { name?: string }).name === 'NoSuchKey' || (error as { name?: string }).name === 'NotFound';

/** Anything the bucket did not answer, or answered with a failure of its own, is the storage being unavailable. */
function unavailable(error: unknown, doing: string): AppError {
  if (error instanceof AppError) return error;
  // Only the kind of failure goes out (to /ready): host names and bucket details stay in the log.
  const code = (error as { code?: string; name?: string }).code ?? (error as { name?: string }).name ?? 'Error';
  return Object.assign(new AppError('STORAGE_UNAVAILABLE', `file storage is unavailable (${doing}: ${code})`), { cause: error });
}

/** Objects in an S3-compatible bucket (AWS S3, MinIO, R2, B2, Garage), all under one key prefix. */
export class S3Backend implements StorageBackend {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Default checksums (CRC32 trailers in aws-chunked bodies) are not understood by many
      // S3-compatible servers; integrity is checked by the store and the migration instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A bucket that does not answer must fail a request in seconds (503), not hang it.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 60_000 },
    });
  }

  get location(): string {
    return `s3://${this.settings.bucket}/${this.settings.prefix}`;
  }

  private keyOf(key: string): string {
    return `${this.settings.prefix}${key}`;
  }

  async write(key: string, body: Readable, meta: { contentType?: string; sha256?: string } = {}): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.settings.bucket,
        Key: this.keyOf(key),
        Body: body,
        ...(meta.contentType ? { ContentType: meta.contentType } : {}),
        ...(meta.sha256 ? { Metadata: { sha256: meta.sha256 } } : {}),
      },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      // A failed multipart upload is aborted, so its parts do not linger (and cost) in the bucket.
      leavePartsOnError: false,
    });
    // The body failing (a size limit, a cut connection) must reject the upload, not leave it waiting.
    const failed = new Promise<never>((_, reject) => body.once('error', reject));
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => {});
      // The upload's own failure (over the limit, a cut-off part) is the client's, whatever the SDK made of it.
      const own = body.errored ?? error;
      body.destroy();
      if (own instanceof AppError || String((own as { code?: unknown }).code ?? '').startsWith('FST_')) throw own;
      throw unavailable(error, 'upload');
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return null;
      throw unavailable(error, 'download');
    }
  }

  async stat(key: string): Promise<(ObjectInfo & { sha256?: string }) | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
      const sha256 = head.Metadata?.sha256;
      return { key, size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0), ...(sha256 ? { sha256 } : {}) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw unavailable(error, 'stat');
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
    } catch (error) {
      if (!isMissing(error)) throw unavailable(error, 'delete');
    }
  }

  async *list(): AsyncIterable<ObjectInfo> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.settings.prefix || undefined, ContinuationToken: token }),
        );
      } catch (error) {
        throw unavailable(error, 'list');
      }
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield { key: object.Key.slice(this.settings.prefix.length), size: object.Size ?? 0, modified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
    } catch (error) {
      throw unavailable(error, `bucket ${this.settings.bucket} cannot be reached`);
    }
  }
}

