import { mkdtempSync } from 'node:fs';
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
