/**
 * The column types both drivers hand back as PostgreSQL's text, as drizzle's drivers leave them
 * (date, timestamp, timestamptz, interval and their arrays, numeric[]), so rows read by any path
 * (node-postgres, drizzle's PGlite driver, db/pglite-prepared.ts) look the same to the presenters.
 */
export const TEXT_TYPE_OIDS: ReadonlySet<number> = new Set([1082, 1114, 1184, 1186, 1115, 1182, 1185, 1187, 1231]);
