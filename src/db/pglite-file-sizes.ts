import type { PGlite } from '@electric-sql/pglite';

/**
 * Remembers the size of each data file PGlite has open, so that asking for it costs no system call.
 *
 * PostgreSQL asks a relation file's size (lseek to its end) whenever it plans or scans a table or
 * extends it: many times per statement. PGlite's on-disk file system (Emscripten's NODEFS) answers
 * each with an fstat of the real file: 10 % of the service's CPU during 32-connection moves on the
 * embedded database (docs/performance.md). This process is the data directory's only writer
 * (data-dir-lock.ts) and every change of a file's size passes through the file system's write and
 * setattr (truncate, and fallocate, which Emscripten runs as a truncate), so the size is kept from
 * the first fstat on: grown by each write past the end, forgotten by each setattr.
 *
 * Applied only when the file system has the shape this was written for; otherwise nothing changes.
 */
export function cacheFileSizes(pglite: PGlite): boolean {
  const module = (pglite as unknown as { Module?: EmscriptenModule }).Module;
  const nodefs = module?.NODEFS;
  const FS = module?.FS;
  const stream = nodefs?.stream_ops;
  const node = nodefs?.node_ops;
  if (!FS || !stream || !node || ![stream.llseek, stream.write, stream.setattr, node.setattr].every((f) => typeof f === 'function')) return false;
  const { llseek, write, setattr: setStream } = stream;
  const setNode = node.setattr;
  const SEEK_END = 2;
  stream.llseek = function (s, offset, whence) {
    if (whence !== SEEK_END || !FS.isFile(s.node.mode)) return llseek.call(this, s, offset, whence);
    s.node.cachedSize ??= llseek.call(this, s, 0, SEEK_END);
    const position = offset + s.node.cachedSize;
    // As the original: a position before the start is EINVAL (28).
    if (position < 0) throw new FS.ErrnoError(28);
    return position;
  };
  stream.write = function (s, buffer, offset, length, position) {
    let written: number;
    try {
      written = write.call(this, s, buffer, offset, length, position);
    } catch (error) {
      s.node.cachedSize = undefined;
      throw error;
    }
    if (s.node.cachedSize !== undefined) {
      if (typeof position === 'number') s.node.cachedSize = Math.max(s.node.cachedSize, position + written);
      else s.node.cachedSize = undefined;
    }
    return written;
  };
  stream.setattr = function (s, attr) {
    s.node.cachedSize = undefined;
    return setStream.call(this, s, attr);
  };
  node.setattr = function (n, attr) {
    n.cachedSize = undefined;
    return setNode.call(this, n, attr);
  };
  return true;
}

interface FsNode {
  mode: number;
  cachedSize?: number;
}

interface FsStream {
  node: FsNode;
}

interface EmscriptenModule {
  FS?: { isFile(mode: number): boolean; ErrnoError: new (errno: number) => Error };
  NODEFS?: {
    stream_ops: {
      llseek(this: unknown, s: FsStream, offset: number, whence: number): number;
      write(this: unknown, s: FsStream, buffer: unknown, offset: number, length: number, position?: number): number;
      setattr(this: unknown, s: FsStream, attr: object): unknown;
    };
    node_ops: { setattr(this: unknown, n: FsNode, attr: object): unknown };
  };
}
