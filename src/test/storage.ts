import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../config.js';
import { useTestApp, type TestKit } from './app.js';
import { FakeS3 } from './fake-s3.js';

// The SDK's notice that its releases of 2027 need Node 22 is for operators, not for every test file.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The file storage backends every file test runs on (`describe.each(STORAGE_BACKENDS)`). */
export const STORAGE_BACKENDS = ['local', 's3'] as const;
export type StorageKind = (typeof STORAGE_BACKENDS)[number];

export interface StorageKit extends TestKit {
  /** The S3-compatible server of an `s3` kit (null for `local`). */
  s3: FakeS3 | null;
}

/**
 * A test app on the given storage backend. For `s3` it starts an S3-compatible server on 127.0.0.1
 * for the test file and gives the app a prefix of its own in its bucket.
 */
export function useStorageTestApp(storage: StorageKind, overrides: Partial<Config> = {}): StorageKit {
  const s3 = storage === 's3' ? new FakeS3() : null;
  if (s3) {
    beforeAll(() => s3.start());
    afterAll(async () => {
      await s3.stop();
      rmSync(s3.dir, { recursive: true, force: true });
    });
  }
  const kit = useTestApp(() => ({ ...overrides, ...(s3 ? { fileStorage: 's3' as const, s3: s3.settings() } : {}) })) as StorageKit;
  kit.s3 = s3;
  return kit;
}
