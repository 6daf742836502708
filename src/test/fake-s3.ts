import { createWriteStream, mkdtempSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import S3rver from 's3rver';
import type { S3Settings } from '../config.js';

/**
 * An S3-compatible server on 127.0.0.1 for tests and the bench: s3rver, pure JavaScript (Koa and
 * a directory store), so it installs from the npm registry with no binary, compiler or install
 * script, and can be stopped and started again on the same port and data (an outage in a test).
 */
export class FakeS3 {
  readonly bucket = 'workboard-test';
  readonly dir = mkdtempSync(path.join(tmpdir(), 'fake-s3-'));
  port = 0;
  private server: S3rver | null = null;

  async start(): Promise<void> {
    if (this.server) return;
    const server = new S3rver({ address: '127.0.0.1', port: this.port, silent: true, directory: this.dir, configureBuckets: [{ name: this.bucket }] });
    durablePuts((server as unknown as { store: Store }).store);
    const address = await server.run();
    this.port = address.port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.close();
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Settings of a fresh prefix in the bucket (s3rver accepts its own fixed credentials). */
  settings(prefix = `t-${randomUUID()}/`): S3Settings {
    return { endpoint: this.endpoint, region: 'us-east-1', bucket: this.bucket, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, prefix };
  }
}

interface Store {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: unknown }): Promise<{ size: number; md5: string }>;
}

/**
 * s3rver's PUT answers once its checksum stream ends, before the file stream has written the bytes,
 * and opens the object's file (emptying it) before the body arrives: a read right after a PUT could
 * see an empty object, and an upload cut off by a killed client emptied the object another client
 * had just stored. Here a PUT writes a file of its own and renames it over the object once written,
 * as a real store commits an object whole or not at all.
 */
function durablePuts(store: Store): void {
  store.putObject = async (object) => {
    const target = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${randomUUID()}.partial`;
    const md5 = createHash('md5');
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      const body = Buffer.isBuffer(object.content) ? [object.content] : object.content;
      await pipeline(body, count, createWriteStream(partial));
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}
