import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** What migrating needs of an open database (db/client.ts's Database), named here so that neither file imports the other's. */
export interface Migratable {
  kind: 'pglite' | 'postgres';
  db: unknown;
}

/** Applies the committed migrations that the database has not seen yet (idempotent). */
export async function runMigrations(database: Migratable): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as never, { migrationsFolder });
  } else {
    await migratePg(database.db as never, { migrationsFolder });
  }
}
