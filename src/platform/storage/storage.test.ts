import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { notModified, requestedRange } from './conditional.js';

// Settings and HTTP range rules of file storage; the storage itself is tested through HTTP in modules/files.
describe('file storage settings', () => {
  it('defaults to local; s3 needs a bucket and an http(s) endpoint; the prefix ends in one slash', () => {
    expect(loadConfig({}).fileStorage).toBe('local');
    expect(() => loadConfig({ FILE_STORAGE: 's3' })).toThrow('S3_BUCKET must be set with FILE_STORAGE=s3, got nothing');
    expect(() => loadConfig({ FILE_STORAGE: 'ftp' })).toThrow('FILE_STORAGE must be local or s3, got "ftp"');
    expect(() => loadConfig({ FILE_STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' })).toThrow('S3_ENDPOINT must be an absolute http(s) URL, got "minio:9000"');
    const config = loadConfig({ FILE_STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://minio:9000', S3_PREFIX: '/wb', S3_FORCE_PATH_STYLE: 'true' });
    expect(config.s3).toEqual({ endpoint: 'http://minio:9000', region: 'us-east-1', bucket: 'b', accessKeyId: null, secretAccessKey: null, forcePathStyle: true, prefix: 'wb/' });
  });
});

describe('Range and conditional requests', () => {
  const v = { etag: '"k"', lastModified: new Date('2026-01-01T10:00:00.500Z') };
  it('reads one range, open-ended and suffix ranges; anything else is the whole file', () => {
    expect(requestedRange({ range: 'bytes=100-199' }, 1000, v)).toEqual({ start: 100, end: 199 });
    expect(requestedRange({ range: 'bytes=900-5000' }, 1000, v)).toEqual({ start: 900, end: 999 });
    expect(requestedRange({ range: 'bytes=-2000' }, 1000, v)).toEqual({ start: 0, end: 999 });
    expect(requestedRange({ range: 'bytes=1000-' }, 1000, v)).toBe('unsatisfiable');
    expect(requestedRange({ range: 'bytes=0-1,5-6' }, 1000, v)).toBeNull();
    expect(requestedRange({ range: 'items=0-1' }, 1000, v)).toBeNull();
    expect(requestedRange({ range: 'bytes=5-1' }, 1000, v)).toBeNull();
    expect(requestedRange({ range: 'bytes=0-9', 'if-range': '"k"' }, 1000, v)).toEqual({ start: 0, end: 9 });
    expect(requestedRange({ range: 'bytes=0-9', 'if-range': 'Thu, 01 Jan 2026 09:00:00 GMT' }, 1000, v)).toBeNull();
  });
  it('answers not modified to a matching tag (weak or not, in a list) or a date not older than the file, to the second', () => {
    expect(notModified({ 'if-none-match': 'W/"k"' }, v)).toBe(true);
    expect(notModified({ 'if-none-match': '"a", "k"' }, v)).toBe(true);
    expect(notModified({ 'if-none-match': '"a"', 'if-modified-since': v.lastModified.toUTCString() }, v)).toBe(false);
    expect(notModified({ 'if-modified-since': v.lastModified.toUTCString() }, v)).toBe(true);
    expect(notModified({ 'if-modified-since': 'Thu, 01 Jan 2026 09:59:59 GMT' }, v)).toBe(false);
  });
});
