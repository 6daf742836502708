import type { Config } from '../../config.js';
import type { ArchiveFormat, ReadLimits } from './archive.js';

export const ORGANIZATION_FORMAT: ArchiveFormat = 'workboard-organization-export';

/** Largest archive an import accepts. */
export const MAX_ARCHIVE_BYTES = 4 * 1024 * 1024 * 1024;

/**
 * What a reader accepts: files no larger than this instance accepts uploads; in all at most 64 GiB
 * unpacked and 200 times the packed size (JSON Lines of a real organization pack 10 to 30 times;
 * a bomb thousands).
 */
export const archiveLimits = (config: Pick<Config, 'fileLimitBytes'>): ReadLimits => ({
  maxFileBytes: config.fileLimitBytes,
  maxUnpackedBytes: 64 * 1024 * 1024 * 1024,
  maxRatio: 200,
});
