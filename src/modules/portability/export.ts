import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { migrationsFolder } from '../../db/migrate.js';
import { ArchiveWriter, type ArchiveFormat } from './archive.js';
import type { TableInfo } from './catalogue.js';
import { countRows, tableRows } from './rows.js';
import { Report } from './report.js';

/** The last migration of this code's schema: an archive names the schema its rows have. */
export const SCHEMA_VERSION: string = (() => {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.at(-1)!.tag;
})();

export interface ArchiveSpec {
  format: ArchiveFormat;
  tables: TableInfo[];
  where(table: TableInfo): SQL | null;
  /** Columns left out of a table (secrets); none in an instance backup. */
  omit(table: TableInfo): string[];
  /** Stored blobs to include, as entry name and key; sizes are read from storage. */
  blobs(db: Queryable): AsyncIterable<{ name: string; key: string; size: number }>;
  source: Record<string, unknown>;
}

export interface Progress {
  total(n: number): Promise<void>;
  advance(n: number): Promise<void>;
}

/**
 * Writes an archive to file storage as it is produced: rows in batches, files streamed from
 * storage, so memory does not grow with the organization. Answers the blob's key and size. A blob
 * the storage has lost is left out and reported, not a reason to fail the whole export.
 */
export async function writeArchive(app: FastifyInstance, db: Queryable, spec: ArchiveSpec, progress: Progress): Promise<{ key: string; size: number; report: Report }> {
  const key = randomUUID();
  try {
    const report = await streamArchive(app, db, spec, progress, (output) => app.files.backend.write(key, output, { contentType: 'application/gzip' }));
    // Measured by the storage, not by listening to the stream: a listener would make it flow before the upload reads it.
    const size = (await app.files.backend.stat(key))?.size ?? 0;
    return { key, size, report };
  } catch (error) {
    await app.files.remove(key).catch(() => {});
    throw error;
  }
}

/** Writes an archive into `sink` (file storage, a local file), which must read the stream to its end. */
export async function streamArchive(app: FastifyInstance, db: Queryable, spec: ArchiveSpec, progress: Progress, sink: (output: Readable) => Promise<void>): Promise<Report> {
  const report = new Report();
  const counts = await countRows(db, spec.tables, spec.where);
  const blobs: { name: string; key: string; size: number }[] = [];
  for await (const blob of spec.blobs(db)) blobs.push(blob);
  await progress.total(Object.values(counts).reduce((a, b) => a + b, 0) + blobs.length);

  const writer = await ArchiveWriter.create(spec.format);
  const stored = sink(writer.output);
  // A failed upload must stop the writer, or it would wait for room that never comes.
  stored.catch((error: unknown) => writer.destroy(error as Error));
  try {
    await writer.start();
    const tables: Record<string, { rows: number }> = {};
    for (const table of spec.tables) {
      const out = writer.table(table.name);
      let pending = 0;
      for await (const line of tableRows(db, table, spec.where(table), spec.omit(table))) {
        await out.line(line);
        if (++pending === 1000) {
          await progress.advance(pending);
          pending = 0;
        }
      }
      await progress.advance(pending);
      tables[table.name] = { rows: await out.close() };
      report.count(table.name, tables[table.name]!.rows);
    }
    let files = 0;
    for (const blob of blobs) {
      const stream = await app.files.open(blob.key).catch(() => null);
      if (!stream) {
        report.skip('files: the stored bytes are missing from storage (the file row is kept)', 1);
      } else {
        await writer.stream(blob.name, blob.size, stream);
        files++;
      }
      await progress.advance(1);
    }
    report.count('storedFiles', files);
    await writer.finish({ createdAt: new Date().toISOString(), schema: SCHEMA_VERSION, source: spec.source, tables, files });
    await stored;
  } catch (error) {
    writer.destroy(error as Error);
    await stored.catch(() => {});
    throw error;
  }
  return report;
}
