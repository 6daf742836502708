import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { fileURLToPath } from 'node:url';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** What migrating needs of an open database (db/client.ts's Database), named here so that neither file imports the other's. */
export interface Migratable {
  kind: 'pglite' | 'postgres';
  db: unknown;
}

/** Applies the committed migrations that the database has not seen yet (idempotent); `log` hears how many, when any. */
export async function runMigrations(database: Migratable, log?: (line: string) => void): Promise<void> {
  if (log) {
    const pending = await pendingMigrations(database);
    if (pending > 0) log(`applying ${pending} migration${pending === 1 ? '' : 's'}…`);
  }
  if (database.kind === 'pglite') {
    // Its driver imports PGlite, which a server on PostgreSQL never loads (issue 42).
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(database.db as never, { migrationsFolder });
  } else {
    await migratePg(database.db as never, { migrationsFolder });
  }
}

type Executes = { execute(query: ReturnType<typeof sql>): Promise<{ rows: Array<Record<string, unknown>> }> };

/** As drizzle's migrator decides: the journal's entries newer than the last one the database recorded. */
async function pendingMigrations(database: Migratable): Promise<number> {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> };
  const db = database.db as Executes;
  const table = await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!table.rows[0]?.present) return journal.entries.length;
  const last = await db.execute(sql`select max(created_at) as last from drizzle.__drizzle_migrations`);
  const applied = Number(last.rows[0]?.last ?? 0);
  return journal.entries.filter((e) => e.when > applied).length;
}
