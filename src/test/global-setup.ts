import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { migrationsFolder } from '../db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteImage: string;
    tmpDir: string;
  }
}

/**
 * Migrates once per run. PGlite: a migrated in-memory database is dumped to a tarball that each test
 * file loads (loading an image is far faster than migrating per file). PostgreSQL: the schema is
 * dropped and migrated once; files share it, isolated by a fresh organization per test.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'workboard-test-'));
  project.provide('tmpDir', dir);
  const url = process.env.DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('drop schema if exists public cascade; drop schema if exists drizzle cascade; create schema public;');
    await client.end();
    const pooler = { DATABASE_DIRECT_URL: process.env.DATABASE_DIRECT_URL, DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS };
    const database = await openDatabase(loadConfig({ DATABASE_URL: url, ...pooler }));
    await database.close();
    project.provide('pgliteImage', '');
  } else {
    const migrated = await PGlite.create();
    await migrate(drizzle(migrated), { migrationsFolder });
    const dump = await migrated.dumpDataDir('none');
    const image = path.join(dir, 'pglite-image.tar');
    writeFileSync(image, Buffer.from(await dump.arrayBuffer()));
    await migrated.close();
    project.provide('pgliteImage', image);
  }
  return () => rmSync(dir, { recursive: true, force: true });
}
