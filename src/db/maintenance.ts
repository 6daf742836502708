import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { registerJob } from '../platform/jobs.js';
import { queryRows, type Queryable } from './client.js';

/**
 * What PostgreSQL's autovacuum does that the embedded engine (PGlite) has no process for, as
 * periodic jobs of the service itself.
 *
 * - Vacuum and statistics, table by table when autovacuum would (its default thresholds): dead rows
 *   are reclaimed, the visibility map lets index-only scans skip the heap (a column's dense positions
 *   are counted on its index), old transaction ids are frozen before the engine must refuse writes to
 *   avoid wraparound, and the planner keeps statistics (without them it picks nested loops over
 *   whole tables as the data grows). Analyzing everything every 10 minutes, as before, blocked the
 *   engine's thread some 200 ms per large table whether or not it had changed.
 * - GIN pending lists: rows added to a GIN index (task and message search, reglaments, the AI
 *   index) go first to the index's unsorted pending list, which every search through that index reads
 *   whole; only vacuum, or an insert finding the list past gin_pending_list_limit (4 MB), merges it
 *   into the index. Left alone, searches read up to 4 MB of list each: a narrow search of a
 *   1,000-task organization took 20 ms where the cleaned index answers in 1. Merging per index is
 *   tens of milliseconds; `fastupdate = off` (no list) would instead cost every write of a task's
 *   text or a chat message its index insertions at once (measured 0.29-0.37 ms against 0.18 ms per
 *   row on PGlite), and PostgreSQL needs neither.
 */
export function registerEmbeddedMaintenance(app: FastifyInstance): void {
  registerJob(app, { name: 'db.vacuum', intervalMs: 60_000, exclusive: false, run: async (a) => void (await vacuumDue(a.database.db)) });
  registerJob(app, {
    name: 'db.gin-clean',
    intervalMs: 10 * 60_000,
    exclusive: false,
    run: async (a) =>
      void (await a.database.db.execute(
        sql`select gin_clean_pending_list(c.oid) from pg_class c join pg_am am on am.oid = c.relam
            where am.amname = 'gin' and c.relnamespace = 'public'::regnamespace`,
      )),
  });
}

/*
 * PostgreSQL's autovacuum defaults: vacuum past 50 dead rows + 20 % of the table, or 1,000 inserted
 * + 20 % (so the visibility map covers new rows), or a frozen-id age of 200 million; analyze past 50
 * changed rows + 10 %.
 */
const DUE = sql`select name, vacuum from (
      select quote_ident(s.relname) as name,
        s.n_dead_tup > 50 + 0.2 * c.reltuples or s.n_ins_since_vacuum > 1000 + 0.2 * c.reltuples
          or age(c.relfrozenxid) > current_setting('autovacuum_freeze_max_age')::bigint as vacuum,
        s.n_mod_since_analyze > 50 + 0.1 * c.reltuples as stale
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public') due
    where vacuum or stale
    order by name`;

/** Vacuums and analyzes the tables that are due, one per turn of the event loop (requests go between). */
export async function vacuumDue(db: Queryable): Promise<string[]> {
  const due = await queryRows<{ name: string; vacuum: boolean }>(db, DUE);
  for (const table of due) {
    await new Promise((resolve) => setImmediate(resolve));
    // The name is the catalog's own, quoted by quote_ident.
    await db.execute(sql.raw(table.vacuum ? `vacuum (analyze) public.${table.name}` : `analyze public.${table.name}`));
  }
  return due.map((t) => t.name);
}
