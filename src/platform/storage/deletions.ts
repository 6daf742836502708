import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { DurableQueue } from '../queue.js';
import type { ObjectInfo, StorageBackend } from './backend.js';

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const uuidArray = (keys: string[]) => sql`${`{${keys.join(',')}}`}::uuid[]`;

/**
 * The queue of removals (platform/queue.ts). Its rows are all pending: a removal that is done
 * deletes its row, one that fails is retried for ever, 5 s after the first failure and doubling to
 * at most 10 minutes (a bucket down for hours is retried every 10 minutes). A claim keeps other
 * instances away for 5 minutes; only a failure counts as an attempt.
 */
const queue = new DurableQueue<string>(
  { table: 'file_deletions', key: 'key', keyType: 'text', status: null, updatedAt: null, countAt: 'settle' },
  { leaseMs: 300_000, retrySchedule: (attempt) => Math.min(600, 5 * 2 ** Math.min(attempt - 1, 10)) * 1000 },
);

export interface DeletionOutcome {
  removed: number;
  failed: number;
}

/** Records, in the deleting transaction, that these objects must go once it commits. */
export async function queueDeletions(db: Queryable, keys: string[]): Promise<void> {
  const valid = keys.filter((k) => KEY.test(k));
  if (valid.length === 0) return;
  await db.execute(sql`insert into file_deletions (key) select unnest(${uuidArray(valid)}) on conflict do nothing`);
}

/**
 * Removes the objects of queued deletions and drops their queue rows; a removal that fails stays
 * queued with a growing delay and its reason. Called right after commit for the keys the request
 * queued, and by the `files.deletes` job for everything due (claimed with a lease, so instances
 * sharing the database do not remove the same object at once).
 */
export async function runDeletions(db: Queryable, backend: StorageBackend, keys?: string[]): Promise<DeletionOutcome> {
  const claims = keys
    ? await queue.claim(db, 500, sql`key = any(${uuidArray(keys.filter((k) => KEY.test(k)))})`, { anyTime: true })
    : await queue.claim(db, 500);
  const outcome: DeletionOutcome = { removed: 0, failed: 0 };
  for (const claim of claims) {
    try {
      await backend.remove(claim.id);
      await queue.succeed(db, claim);
      outcome.removed++;
    } catch (error) {
      outcome.failed++;
      await queue.fail(db, claim, String((error as Error).message ?? error).slice(0, 500), true);
    }
  }
  return outcome;
}

export interface SweepReport {
  dryRun: boolean;
  /** Objects looked at (every object in the store). */
  scanned: number;
  /** Objects with no files row, older than the cut-off: removed, or only listed when dry. */
  orphans: ObjectInfo[];
  orphanBytes: number;
  removed: number;
}

/**
 * Finds objects that no files row refers to (an upload whose request died before its row was
 * written, a file whose organization was deleted), older than `olderThanMs` so uploads still on
 * their way to a row are never touched, and removes them unless `dryRun`.
 */
export async function sweepOrphans(db: Queryable, backend: StorageBackend, options: { dryRun?: boolean; olderThanMs?: number } = {}): Promise<SweepReport> {
  const cutoff = Date.now() - (options.olderThanMs ?? 24 * 3600_000);
  const report: SweepReport = { dryRun: options.dryRun ?? false, scanned: 0, orphans: [], orphanBytes: 0, removed: 0 };
  let batch: ObjectInfo[] = [];
  const judge = async () => {
    if (batch.length === 0) return;
    const keys = uuidArray(batch.map((o) => o.key));
    // Organization export and import archives are blobs no file row names; their job removes them.
    const known = await queryRows<{ key: string }>(
      db,
      sql`select key::text as key from files where key = any(${keys}) union all select archive_key::text from portability_jobs where archive_key = any(${keys})`,
    );
    const kept = new Set(known.map((r) => r.key));
    for (const object of batch) {
      if (kept.has(object.key)) continue;
      report.orphans.push(object);
      report.orphanBytes += object.size;
      if (report.dryRun) continue;
      await backend.remove(object.key);
      await db.execute(sql`delete from file_deletions where key = ${object.key}`);
      report.removed++;
    }
    batch = [];
  };
  for await (const object of backend.list()) {
    report.scanned++;
    // Anything else under the prefix is not the service's to judge.
    if (!KEY.test(object.key) || object.modified.getTime() > cutoff) continue;
    batch.push(object);
    if (batch.length >= 500) await judge();
  }
  await judge();
  return report;
}
