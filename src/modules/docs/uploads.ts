import type { FileStore } from '../../platform/files.js';
import type { ReceivedFile } from '../files/files.service.js';

/**
 * Runs the use case that records several received uploads. If it fails before recording them (a
 * refused role, a missing page), every blob is deleted: nothing will ever refer to them.
 */
export async function withUploads<T>(store: FileStore, received: ReceivedFile[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    await Promise.all(received.map((r) => store.remove(r.key).catch(() => {})));
    throw error;
  }
}

/** Content limit in UTF-8 bytes; the JSON body may be larger (escapes), so content routes allow twice that. */
export const CONTENT_BODY_LIMIT = 2 * 1_048_576 + 64 * 1024;
