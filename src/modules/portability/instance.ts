import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { withTransaction } from '../../db/tx.js';
import { AppError } from '../../platform/errors.js';
import { pauseQueue, syncLoaded } from '../analytics/analytics.queue.js';
import { walkArchive, type Manifest, type ReadLimits } from './archive.js';
import { instancePlan, type TableInfo } from './catalogue.js';
import { SCHEMA_VERSION, streamArchive, type Progress } from './export.js';
import { insertRows, resetSequence, setColumn } from './rows.js';

// The operator's backup and restore of a whole instance (every organization, every table, every
// stored file), for `npm run backup` / `npm run restore`. Unlike an organization export, nothing is
// left out (password hashes and sessions included: the restored instance is the same instance) and
// ids are kept.

const FORMAT = 'workboard-instance-backup' as const;
/** A backup is the operator's own file: no bomb ratio, but entries no larger than files can be. */
const LIMITS: ReadLimits = { maxFileBytes: 64 * 1024 * 1024 * 1024, maxUnpackedBytes: Number.MAX_SAFE_INTEGER, maxRatio: Number.MAX_SAFE_INTEGER };
const quiet: Progress = { total: async () => {}, advance: async () => {} };

/** Writes every table and every stored blob to `file`; on PostgreSQL from one snapshot. */
export async function backupInstance(app: FastifyInstance, file: string, progress: Progress = quiet): Promise<void> {
  const spec = {
    format: FORMAT,
    tables: instancePlan(),
    where: () => null,
    omit: () => [],
    source: { instance: true },
    blobs: async function* () {
      for await (const object of app.files.backend.list()) yield { name: `blobs/${object.key}`, key: object.key, size: object.size };
    },
  };
  const run = (db: Queryable) => streamArchive(app, db, spec, progress, (output) => pipeline(output, createWriteStream(file)));
  if (app.database.kind === 'postgres') await app.database.db.transaction(run, { isolationLevel: 'repeatable read', accessMode: 'read only' });
  else await run(app.database.db);
}

/**
 * Restores a backup into an instance without users or organizations: the archive is read through
 * once to check it (checksums, format, schema version) before anything is written, then loaded in
 * one transaction; blobs written before a failure are removed again.
 */
export async function restoreInstance(app: FastifyInstance, file: string): Promise<Manifest> {
  const manifest = await walkArchive(createReadStream(file), FORMAT, LIMITS);
  if (manifest.schema !== SCHEMA_VERSION) {
    throw new AppError('ARCHIVE_VERSION_UNSUPPORTED', `the backup has the schema of migration ${manifest.schema}; this service has ${SCHEMA_VERSION}: restore it with the version that made it`);
  }
  const [people] = await queryRows<{ n: number }>(app.database.db, sql`select (select count(*) from users) + (select count(*) from organizations) as n`);
  if (Number(people?.n) > 0) throw new AppError('CONFLICT', 'restore needs an instance without users or organizations (a new data directory or an empty database)');
  const tables = instancePlan();
  const byName = new Map(tables.map((t) => [t.name, t]));
  await withTransaction(app.database.db, async ({ tx, onRollback }) => {
    // What the service wrote on its own at start (job timers, counters) makes way for the backup's rows.
    await tx.execute(sql`truncate ${sql.join(tables.map((t) => sql.identifier(t.name)), sql`, `)} cascade`);
    await pauseQueue(tx);
    // The backup's listeners versions are loaded as they were: the webhooks and rules loaded do not bump them (migration 0022).
    await tx.execute(sql`select set_config('workboard.listeners_versions', 'off', true)`);
    const later: { table: TableInfo; column: string; pairs: [number, number][] }[] = [];
    await walkArchive(createReadStream(file), FORMAT, LIMITS, {
      table: async (name, data) => {
        const table = byName.get(name);
        if (!table) throw new AppError('ARCHIVE_INVALID', `the backup has a table "${name}" this schema lacks`);
        const rows = data.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
        // Rows pointing at their own table may come before the row they name: set once all are in.
        for (const ref of table.refs.filter((r) => r.table === table.name)) {
          const pairs: [number, number][] = [];
          for (const row of rows) {
            if (row[ref.column] == null) continue;
            pairs.push([Number(row.id), Number(row[ref.column])]);
            row[ref.column] = null;
          }
          later.push({ table, column: ref.column, pairs });
        }
        if (table.rule.filledByTrigger) await tx.execute(sql`delete from ${sql.identifier(name)}`);
        await insertRows(tx, table, rows);
      },
      file: async (name, _size, body) => {
        const key = name.slice('blobs/'.length);
        onRollback(() => app.files.remove(key));
        await app.files.backend.write(key, Readable.from(body));
      },
    });
    for (const { table, column, pairs } of later) await setColumn(tx, table.name, column, pairs);
    for (const table of tables) if (table.columns.some((c) => c.name === 'id')) await resetSequence(tx, table.name);
    await syncLoaded(tx, null);
  });
  return manifest;
}
