import pg from 'pg';

/** A clean database for the PostgreSQL run: the bench database is created if missing and emptied. */
export async function freshPostgres(url: string): Promise<void> {
  const target = new URL(url);
  const dbName = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  const exists = await client.query('select 1 from pg_database where datname = $1', [dbName]);
  if (exists.rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(dbName)}`);
  await client.end();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('drop schema if exists drizzle cascade; drop schema if exists public cascade; create schema public;');
  await db.end();
}

/**
 * VACUUM ANALYZE after seeding, as production's autovacuum would have done long before anyone
 * measured: plans without statistics are not the plans users get, and index-only scans (the dense
 * positions of a column are counted on its index) visit the heap for every page the visibility map
 * does not yet mark all-visible. This machine's PostgreSQL runs with autovacuum off. PGlite's directory is single-user, so the
 * server is stopped for it and started again (its caches start cold; each workload warms up).
 */
export async function analyzeSeeded<S extends { stop(): Promise<void> }>(mode: string, pgUrl: string, dataDir: string, server: S, restart: () => Promise<S>): Promise<S> {
  if (mode === 'postgres') {
    const db = new pg.Client({ connectionString: pgUrl });
    await db.connect();
    try {
      await db.query('vacuum analyze');
    } finally {
      await db.end();
    }
    return server;
  }
  await server.stop();
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  try {
    await db.query('analyze');
  } finally {
    await db.close();
  }
  return restart();
}
