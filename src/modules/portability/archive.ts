import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { pipeline, Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { Entry, Pack } from 'tar-stream';
import { AppError } from '../../platform/errors.js';

/**
 * The archive format: a gzipped tar whose first entry, `format.json`, names the format and its
 * version, whose last, `manifest.json`, gives every entry's size and SHA-256 and the row counts,
 * and between them the tables as JSON Lines in chunks (`tables/<table>/000001.jsonl`, each small
 * enough to hold in memory) and the stored files (`files/<file id>`, `blobs/<key>` in a backup).
 * tar needs each entry's size before its bytes, which is why tables go out in chunks.
 */
export const FORMAT_VERSION = 1;
export type ArchiveFormat = 'workboard-organization-export' | 'workboard-instance-backup';

/** A chunk of JSON Lines is cut once it passes this size. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** No table chunk, format or manifest entry may be larger (a writer never makes one past CHUNK_BYTES plus a row). */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

export interface EntryDigest {
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: ArchiveFormat;
  version: number;
  createdAt: string;
  /** The last migration of the schema the rows were read from. */
  schema: string;
  source: Record<string, unknown>;
  tables: Record<string, { rows: number }>;
  files: number;
  entries: Record<string, EntryDigest>;
}

const ENTRY_NAMES = [/^format\.json$/, /^manifest\.json$/, /^tables\/[a-z][a-z0-9_]{0,62}\/\d{6}\.jsonl$/, /^files\/[1-9]\d{0,18}$/, /^blobs\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/];

// Loaded by the first export or import, not at start (issue 42).
const loadTar = async () => (await import('tar-stream')).default;

/** Writes an archive as a stream; entries are written one after another, with backpressure. */
export class ArchiveWriter {
  readonly output: Readable;
  private readonly entries: Record<string, EntryDigest> = {};
  private readonly mtime = new Date();

  static async create(format: ArchiveFormat): Promise<ArchiveWriter> {
    return new ArchiveWriter(format, (await loadTar()).pack());
  }

  private constructor(
    private readonly format: ArchiveFormat,
    private readonly pack: Pack,
  ) {
    // pipeline, not pipe: a destroyed pack must fail the output too, or its reader would wait forever.
    this.output = pipeline(Readable.from(this.pack as AsyncIterable<Buffer>), createGzip({ level: 6 }), () => {});
  }

  /** Starts with format.json, so a reader knows the version before anything else. */
  async start(): Promise<void> {
    await this.document('format.json', { format: this.format, version: FORMAT_VERSION });
  }

  async document(name: string, value: unknown): Promise<void> {
    await this.write(name, Buffer.from(JSON.stringify(value, null, 1)));
  }

  async write(name: string, data: Buffer): Promise<void> {
    await this.stream(name, data.length, [data]);
  }

  /** One entry of a known size from any source of bytes (a stored file). */
  async stream(name: string, size: number, source: AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer>): Promise<void> {
    const hash = createHash('sha256');
    let bytes = 0;
    const entry = this.pack.entry({ name, size, mtime: this.mtime, mode: 0o644 });
    const done = new Promise<void>((resolve, reject) => {
      entry.on('finish', resolve);
      entry.on('error', reject);
    });
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
      if (!entry.write(chunk)) await once(entry as never, 'drain');
    }
    entry.end();
    await done;
    if (bytes !== size) throw new Error(`${name}: ${bytes} bytes read, ${size} announced`);
    this.entries[name] = { bytes, sha256: hash.digest('hex') };
  }

  /** A table as chunks of JSON Lines; answers the rows written. */
  table(name: string): { line(json: string): Promise<void>; close(): Promise<number> } {
    let lines: string[] = [];
    let size = 0;
    let chunk = 0;
    let rows = 0;
    const flush = async () => {
      if (lines.length === 0) return;
      const data = Buffer.from(lines.join(''));
      lines = [];
      size = 0;
      await this.write(`tables/${name}/${String(++chunk).padStart(6, '0')}.jsonl`, data);
    };
    return {
      line: async (json) => {
        lines.push(`${json}\n`);
        size += json.length + 1;
        rows++;
        if (size >= CHUNK_BYTES) await flush();
      },
      close: async () => {
        await flush();
        return rows;
      },
    };
  }

  /** Ends the archive with its manifest (which lists every entry but itself). */
  async finish(manifest: Omit<Manifest, 'entries' | 'format' | 'version'>): Promise<void> {
    await this.document('manifest.json', { format: this.format, version: FORMAT_VERSION, ...manifest, entries: this.entries });
    this.pack.finalize();
  }

  destroy(error: Error): void {
    this.pack.destroy(error);
  }
}

export interface ReadLimits {
  /** Largest stored file accepted. */
  maxFileBytes: number;
  /** Largest total of unpacked bytes. */
  maxUnpackedBytes: number;
  /** Unpacked bytes per packed byte beyond which the archive is a decompression bomb. */
  maxRatio: number;
}

export interface ArchiveEntry {
  name: string;
  size: number;
  /** The entry's bytes; must be read (or `skip`ped) before the next entry comes. */
  body: AsyncIterable<Buffer>;
}

const unsafe = (message: string) => new AppError('ARCHIVE_UNSAFE', message);
const invalid = (message: string) => new AppError('ARCHIVE_INVALID', message);

/** The first bytes tell a gzip from a zip or anything else: the clearest refusal is the earliest. */
async function* checkedGzip(source: AsyncIterable<Buffer>, counter: { packed: number }): AsyncGenerator<Buffer> {
  let first = true;
  for await (const chunk of source) {
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0x50 && chunk[1] === 0x4b) throw invalid('this is a zip archive; an organization export is a .tar.gz as this service writes it');
      if (chunk[0] !== 0x1f || (chunk.length > 1 && chunk[1] !== 0x8b)) throw invalid('this is not a gzip-compressed archive (.tar.gz) of an organization export');
    }
    counter.packed += chunk.length;
    yield chunk;
  }
  if (first) throw invalid('the archive is empty');
}

/**
 * Reads an archive entry by entry, refusing what is not one of ours before it costs anything: an
 * unexpected or escaping name, a link or directory, an entry larger than its kind allows, more
 * unpacked bytes than the limits (a decompression bomb), a format or version this code does not
 * know. Checksums are compared with the manifest at its end (`verifyManifest`).
 */
async function* readArchive(source: AsyncIterable<Buffer>, limits: ReadLimits): AsyncGenerator<ArchiveEntry> {
  const counter = { packed: 0 };
  const gunzip = createGunzip();
  const extract = (await loadTar()).extract();
  const input = Readable.from(checkedGzip(source, counter));
  let unpacked = 0;
  const failed = (error: unknown) => {
    extract.destroy(error instanceof AppError ? error : invalid(`the archive is corrupt: ${(error as Error).message}`));
  };
  input.on('error', failed);
  gunzip.on('error', failed);
  gunzip.on('data', (chunk: Buffer) => {
    unpacked += chunk.length;
    if (unpacked > limits.maxUnpackedBytes) failed(unsafe(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`));
    else if (unpacked > 1024 * 1024 + counter.packed * limits.maxRatio) failed(unsafe(`the archive unpacks to more than ${limits.maxRatio} times its size: a decompression bomb`));
  });
  input.pipe(gunzip).pipe(extract as never);

  const seen = new Set<string>();
  let index = 0;
  try {
    for await (const entry of extract as AsyncIterable<Entry & AsyncIterable<Buffer>>) {
      const { name, size = 0, type } = entry.header;
      if (!ENTRY_NAMES.some((pattern) => pattern.test(name)) || seen.has(name)) {
        throw unsafe(`unexpected entry "${name.slice(0, 200)}" (only format.json, manifest.json, tables/… and files/… are read; no paths outside them)`);
      }
      if (type !== 'file') throw unsafe(`entry "${name}" is a ${type ?? 'special entry'}, not a file`);
      const max = name.startsWith('files/') || name.startsWith('blobs/') ? limits.maxFileBytes : MAX_DOCUMENT_BYTES;
      if (size > max) throw unsafe(`entry "${name}" is ${size} bytes; at most ${max} are accepted`);
      if (index === 0 && name !== 'format.json') throw invalid('the archive does not start with format.json: it is not an organization export');
      seen.add(name);
      index++;
      yield { name, size, body: entry };
      // An entry the caller did not read is drained, so the next one can come.
      entry.resume();
    }
  } catch (error) {
    // tar and gzip report damage with plain errors: a bad archive is the client's, not a 500.
    throw error instanceof AppError ? error : invalid(`the archive is corrupt: ${(error as Error).message}`);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  if (index === 0) throw invalid('the archive holds no entries');
}

/** Reads a whole (small) entry. */
export async function readAll(body: AsyncIterable<Buffer>, hash?: ReturnType<typeof createHash>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    hash?.update(chunk);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function parseJson<T>(data: Buffer, what: string): T {
  try {
    return JSON.parse(data.toString('utf8')) as T;
  } catch {
    throw invalid(`${what} is not valid JSON`);
  }
}

/** format.json: the format this code reads, in a version it knows. */
function checkFormat(data: Buffer, expected: ArchiveFormat): void {
  const format = parseJson<{ format?: unknown; version?: unknown }>(data, 'format.json');
  if (format.format !== expected) throw invalid(`the archive is a "${String(format.format)}", not a "${expected}"`);
  if (format.version !== FORMAT_VERSION) {
    throw new AppError('ARCHIVE_VERSION_UNSUPPORTED', `the archive is in format version ${String(format.version)}; this service reads version ${FORMAT_VERSION}`);
  }
}

/** Every entry read must be in the manifest with the same size and digest, and every listed one read. */
function verifyManifest(manifest: Manifest, read: Map<string, EntryDigest>, expected: ArchiveFormat): void {
  if (manifest.format !== expected || manifest.version !== FORMAT_VERSION || typeof manifest.entries !== 'object' || manifest.entries === null) {
    throw invalid('the manifest does not describe this archive');
  }
  for (const [name, digest] of read) {
    const listed = manifest.entries[name];
    if (!listed || listed.sha256 !== digest.sha256 || listed.bytes !== digest.bytes) {
      throw new AppError('ARCHIVE_CHECKSUM_MISMATCH', `entry "${name}" does not match the checksum in the manifest: the archive was changed or damaged`);
    }
  }
  const missing = Object.keys(manifest.entries).filter((name) => !read.has(name));
  if (missing.length > 0) throw new AppError('ARCHIVE_CHECKSUM_MISMATCH', `the archive lacks ${missing.length} entries its manifest lists (first: ${missing[0]})`);
}

/** Hashes an entry's bytes as they pass, for verifyManifest. */
async function* digesting(entry: ArchiveEntry, into: Map<string, EntryDigest>): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of entry.body) {
    hash.update(chunk);
    bytes += chunk.length;
    yield chunk;
  }
  into.set(entry.name, { bytes, sha256: hash.digest('hex') });
}

export interface ArchiveHandlers {
  /** A chunk of a table's JSON Lines (whole lines). */
  table?(table: string, data: Buffer): Promise<void>;
  /** A stored file (`files/<id>` or `blobs/<key>`); its body must be read to the end. */
  file?(name: string, size: number, body: AsyncIterable<Buffer>): Promise<void>;
}

/**
 * Reads an archive of the expected format from start to end, handing tables and files to the
 * handlers in archive order, and answers its manifest once every entry matched it. A handler's
 * work must be undoable (a transaction): the checksums are known only at the end.
 */
export async function walkArchive(source: AsyncIterable<Buffer>, format: ArchiveFormat, limits: ReadLimits, on: ArchiveHandlers = {}): Promise<Manifest> {
  const read = new Map<string, EntryDigest>();
  let manifest: Manifest | null = null;
  for await (const entry of readArchive(source, limits)) {
    if (manifest) throw invalid('the archive has entries after its manifest');
    const body = digesting(entry, read);
    if (entry.name === 'format.json') checkFormat(await readAll(body), format);
    else if (entry.name === 'manifest.json') manifest = parseJson<Manifest>(await readAll(entry.body), 'manifest.json');
    else if (entry.name.startsWith('tables/')) {
      const data = await readAll(body);
      await on.table?.(entry.name.split('/')[1]!, data);
    } else if (on.file) await on.file(entry.name, entry.size, body);
    else for await (const _ of body);
  }
  if (!manifest) throw invalid('the archive has no manifest: it was cut short');
  verifyManifest(manifest, read, format);
  return manifest;
}
